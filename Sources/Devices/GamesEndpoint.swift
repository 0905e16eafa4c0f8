import APNsCore
import Registry
import ScorecastCrypto
import Foundation
import HTTPServer
import Postgres
import ScorecastActivity
import ScorecastCore
import JSON

/// Game reads for apps, widgets and App Intents pickers (public, rate-limited per address):
///
/// - `GET /v1/games/{id}` → one game: teams (name, code, colours: `GameAttributes.Team`'s
///   shape, so an app builds the attributes of an activity it starts from them), status, score, period, clock, and — with
///   `bundle-id` — the channel the app's Live Activity subscribes to; `frequent-updates=false`
///   picks the lighter channel. `environment` (`sandbox` or `production`) may be left out when
///   the bundle id has one app; with two it is a `400` naming both.
/// - `GET /v1/games?league=…&team=…&status=…&date=YYYY-MM-DD&limit=N` → `{"games": […]}`,
///   soonest first (`date` is a UTC day; `limit` 1–200, default 50).
///
/// Both answer a strong `ETag` (a hash of the body) and `304 Not Modified` to a matching
/// `If-None-Match`, so a widget polling an unchanged game costs no body.
package struct GamesEndpoint: Sendable {
    let pool: PostgresPool
    let guardian: AppAPIGuard

    /// Creates the endpoint.
    package init(pool: PostgresPool, guardian: AppAPIGuard) {
        self.pool = pool
        self.guardian = guardian
    }

    /// Adds the routes to `router`.
    package func register(on router: inout Router) {
        router.get("/v1/games/{id}") { request in
            try guardian.checkAddress(request)
            let gameID = try request.pathParameter("id")
            let app = try Self.appQuery(request)
            return try await Self.database(request) {
                guard (try? GameDraft.checkID(gameID)) != nil, let game = try await GameStore(pool: pool).find(id: gameID) else {
                    throw Problem.notFound("there is no game \(gameID.prefix(140))")
                }
                let views = try await views([game], app: app)
                return try Self.conditional(request, JSONCoding.encode(views[0]))
            }
        }
        router.get("/v1/games") { request in
            try guardian.checkAddress(request)
            let filter = try Self.filter(request)
            let app = try Self.appQuery(request)
            return try await Self.database(request) {
                let games = try await pool.query("""
                    SELECT \(unsafeSQL: GameRecord.columns) FROM games
                    WHERE (\(filter.league)::text IS NULL OR league = \(filter.league))
                      AND (\(filter.team)::text IS NULL OR home_team = \(filter.team) OR away_team = \(filter.team))
                      AND (\(filter.status)::text IS NULL OR status = \(filter.status))
                      AND (\(filter.from)::timestamptz IS NULL OR (starts_at >= \(filter.from) AND starts_at < \(filter.until)))
                    ORDER BY starts_at NULLS LAST, id
                    LIMIT \(filter.limit)
                    """).map(GameRecord.init(row:))
                return try Self.conditional(request, JSONCoding.encode(["games": try await views(games, app: app)]))
            }
        }
    }

    /// Which app's channel to show.
    struct AppQuery {
        var bundleID: String
        /// `nil`: the bundle id's only app, whichever environment it is in.
        var environment: APNsEnvironment?
        var frequentUpdates: Bool
    }

    /// The list's filters.
    struct Filter {
        var league: String?
        var team: String?
        var status: String?
        var from: Date?
        var until: Date?
        var limit: Int
    }

    private func views(_ games: [GameRecord], app: AppQuery?) async throws -> [GameView] {
        var channels: [String: GameChannels] = [:]
        if let app, let record = try await self.app(app) {
            channels = try await GameChannels.read(gameIDs: games.map(\.id), appID: record.id, pool: pool)
        }
        return games.map { game in
            GameView(game, channel: app.flatMap { channels[game.id]?.channel(frequentUpdates: $0.frequentUpdates) })
        }
    }

    /// The app `query` names, or `nil` when there is none; a bundle id with apps in both
    /// environments and no `environment` chosen is a `400` that names the choices.
    private func app(_ query: AppQuery) async throws -> AppRecord? {
        let store = AppStore(pool: pool)
        if let environment = query.environment { return try await store.find(bundleID: query.bundleID, environment: environment) }
        let apps = try await store.find(bundleID: query.bundleID)
        guard apps.count <= 1 else {
            let choices = apps.map(\.environment.rawValue).joined(separator: " and ")
            throw Problem.badRequest(
                "\(query.bundleID) has an app in \(choices): add environment=sandbox or environment=production",
                errors: [.init(field: "environment", detail: "is required when the bundle id has apps in \(choices)")])
        }
        return apps.first
    }

    static func appQuery(_ request: HTTPRequest) throws -> AppQuery? {
        guard let bundleID = request.query("bundle-id") else { return nil }
        guard AppValidation.isValidBundleID(bundleID) else {
            throw Problem.badRequest("bundle-id is not a bundle id", errors: [.init(field: "bundle-id", detail: "must look like com.example.app")])
        }
        var environment: APNsEnvironment?
        if let name = request.query("environment") {
            guard let value = APNsEnvironment(rawValue: name) else {
                throw Problem.badRequest("environment must be sandbox or production",
                                         errors: [.init(field: "environment", detail: "must be sandbox or production")])
            }
            environment = value
        }
        let frequent = try request.query("frequent-updates", as: Bool.self) ?? true
        return AppQuery(bundleID: bundleID, environment: environment, frequentUpdates: frequent)
    }

    static func filter(_ request: HTTPRequest) throws -> Filter {
        var filter = Filter(league: request.query("league"), team: request.query("team"), status: request.query("status"), limit: 50)
        if let status = filter.status, !["scheduled", "live", "suspended", "final", "cancelled"].contains(status) {
            throw Problem.badRequest("status must be scheduled, live, suspended, final or cancelled",
                                     errors: [.init(field: "status", detail: "must be scheduled, live, suspended, final or cancelled")])
        }
        if let day = request.query("date") {
            guard day.utf8.count == 10, let start = try? Date(day + "T00:00:00Z", strategy: .iso8601) else {
                throw Problem.badRequest("date must be a day such as 2026-11-29", errors: [.init(field: "date", detail: "must be YYYY-MM-DD (UTC)")])
            }
            filter.from = start
            filter.until = start.addingTimeInterval(86_400)
        }
        if let limit = try request.query("limit", as: Int.self) {
            guard (1...200).contains(limit) else {
                throw Problem.badRequest("limit must be 1–200", errors: [.init(field: "limit", detail: "must be 1–200")])
            }
            filter.limit = limit
        }
        return filter
    }

    /// `200` with the body and its `ETag`, or `304` when `If-None-Match` names it.
    static func conditional(_ request: HTTPRequest, _ body: [UInt8]) throws -> HTTPResponse {
        let etag = "\"" + Hex.encode(Array(SHA256.hash(body).prefix(16))) + "\""
        let headers: HTTPHeaders = ["ETag": etag, "Cache-Control": "no-cache"]
        if let match = request.headers["If-None-Match"] {
            let tags = match.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            if tags.contains("*") || tags.contains(etag) || tags.contains("W/" + etag) {
                return .empty(status: .notModified, headers: headers)
            }
        }
        var response = HTTPResponse(status: .ok, headers: headers, body: body)
        response.headers.replaceOrAdd("Content-Type", "application/json")
        return response
    }

    private static func database(_ request: HTTPRequest, _ body: () async throws -> HTTPResponse) async throws -> HTTPResponse {
        do {
            return try await body()
        } catch let error as PostgresError {
            request.logger.error("game read failed", ["error": error.message])
            throw Problem.serviceUnavailable("the game registry is unavailable")
        }
    }

    /// A game as apps read it.
    struct GameView: Encodable {
        struct Score: Encodable { let home: Int; let away: Int }
        struct Channel: Encodable { let id: String; let tier: String }

        let id: String
        let league: String
        let sport: String
        /// Each team as the Live Activity shows it (``GameRecord/team(_:)``): `name`,
        /// `abbreviation`, `primaryColour`, `secondaryColour`.
        let home: GameAttributes.Team
        let away: GameAttributes.Team
        let startsAt: Date?
        let status: String
        let score: Score
        let period: String?
        let clock: String?
        let updatedAt: Date?
        let channel: Channel?

        init(_ game: GameRecord, channel: (id: String, tier: String)?) {
            id = game.id
            league = game.league
            sport = game.sport
            home = game.team(.home)
            away = game.team(.away)
            startsAt = game.startsAt
            status = game.status
            let state = game.state ?? .initial
            score = Score(home: state.homeScore, away: state.awayScore)
            period = state.period
            clock = state.clock
            updatedAt = game.lastEventAt
            self.channel = channel.map { Channel(id: $0.id, tier: $0.tier) }
        }

        private enum CodingKeys: String, CodingKey {
            case id, league, sport, home, away, startsAt, status, score, period, clock, updatedAt, channel
        }

        func encode(to encoder: any Encoder) throws {
            // Explicit nulls keep the shape stable for apps decoding it.
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(id, forKey: .id)
            try container.encode(league, forKey: .league)
            try container.encode(sport, forKey: .sport)
            try container.encode(home, forKey: .home)
            try container.encode(away, forKey: .away)
            try container.encode(startsAt, forKey: .startsAt)
            try container.encode(status, forKey: .status)
            try container.encode(score, forKey: .score)
            try container.encode(period, forKey: .period)
            try container.encode(clock, forKey: .clock)
            try container.encode(updatedAt, forKey: .updatedAt)
            try container.encode(channel, forKey: .channel)
        }
    }
}
