import Clocks
import DeliveryEngine
import Foundation
import HTTPServer
import JSON
import Migrations
import Postgres
import PrometheusMetrics
import Registry
import ScorecastCore
import ScorecastLogging
import Server
import ServiceBase
import TestSupport
import Testing

/// A migrated schema of the test's own, with an app, channels bound to games, a feed key, and
/// the ingest endpoint on a router.
final class IngestFixture: Sendable {
    let pool: PostgresPool
    let settings: IngestSettings
    /// The endpoint's clock, from ``start`` on.
    let clock: ManualServiceClock
    let logSink: MemorySink
    /// The endpoint's metrics.
    let metricsRegistry: MetricsRegistry
    /// The key of feed `feed-a` (unsigned).
    let token: APIKeyToken
    /// The app every channel belongs to.
    let appID: Int64

    /// Where the fixture's clock starts (event times in ``EventJSON`` are counted from here).
    static let start = Date(timeIntervalSince1970: 1_764_450_000)

    static let schemaFiles: [MigrationFile] = {
        (try? SchemaFolder.read(ScorecastProcess.schemaFolder)) ?? []
    }()

    /// The endpoint on a router (the clock is the fixture's). One endpoint for the fixture's
    /// life, so concurrent posts share its group commit as they would in `serve`.
    let router: Router
    /// The metrics the endpoint counts received events in.
    let metrics: ScorecastMetrics

    private init(pool: PostgresPool, settings: IngestSettings, clock: ManualServiceClock, token: APIKeyToken, appID: Int64) throws {
        self.pool = pool
        self.settings = settings
        self.clock = clock
        self.token = token
        self.appID = appID
        let logSink = MemorySink()
        self.logSink = logSink
        var router = Router()
        let logger = Logger(label: "test", level: .debug, sink: logSink)
        let registry = MetricsRegistry()
        self.metricsRegistry = registry
        let metrics = try ScorecastMetrics(registry: registry)
        self.metrics = metrics
        EventsEndpoint(pool: pool, settings: settings, logger: logger, metrics: metrics, clock: clock).register(on: &router)
        self.router = router
    }

    /// A fresh fixture; `configure` adjusts the settings.
    static func make(_ configure: (inout IngestSettings) -> Void = { _ in }) async throws -> IngestFixture {
        let pool = try await TestDatabase.shared().makePool(maxConnections: 6)
        #expect(!schemaFiles.isEmpty, "Sources/Migrations/Schema/ has migrations")
        try await Migrator(files: schemaFiles, logger: TestDatabase.logger).migrate(pool)
        let appRows = try await pool.query("""
            INSERT INTO apps (bundle_id, environment, team_id, key_id, key_path, dismissal_delay_seconds)
            VALUES ('com.example.scores', 'sandbox', 'TEAM123456', 'KEY1234567', '/keys/a.p8', 600)
            RETURNING id
            """)
        let appID: Int64 = try #require(appRows.first).decode("id")
        let created = try await APIKeyStore(pool: pool, keyring: nil).create(name: "feed-a", signed: false)
        var settings = IngestSettings(
            maximumBatchSize: 50, maximumBodyBytes: 64 * 1024, createUnknownGames: true, signatureTolerance: 300,
            shaping: ShapingPolicy(routineInterval: 10), staleness: StalenessPolicy(defaultSeconds: 900, bySport: ["football": 600]))
        configure(&settings)
        return try IngestFixture(pool: pool, settings: settings, clock: ManualServiceClock(start), token: created.token, appID: appID)
    }

    /// Runs `body` with a fresh fixture and closes it afterwards, whatever happens.
    static func with(
        configure: (inout IngestSettings) -> Void = { _ in }, _ body: (IngestFixture) async throws -> Void
    ) async throws {
        let fixture = try await make(configure)
        do {
            try await body(fixture)
        } catch {
            await fixture.close()
            throw error
        }
        await fixture.close()
    }

    /// Creates a game with team names.
    func addGame(_ id: String, home: String = "Arsenal", away: String = "Chelsea", sport: String = "football") async throws {
        try await pool.execute("INSERT INTO games (id, home_team, away_team, sport) VALUES (\(id), \(home), \(away), \(sport))")
    }

    /// Creates an active channel bound to `game`; returns its id.
    @discardableResult
    func addChannel(boundTo game: String, appID: Int64? = nil, status: String = "active", lastTimestamp: Int64 = 0) async throws -> Int64 {
        let rows = try await pool.query("""
            INSERT INTO channels (apns_channel_id, app_id, storage_policy, status, last_timestamp)
            VALUES (\(UUID().uuidString), \(appID ?? self.appID), 0, \(status), \(lastTimestamp))
            RETURNING id
            """)
        let id: Int64 = try #require(rows.first).decode("id")
        try await pool.execute("INSERT INTO channel_bindings (channel_id, game_id) VALUES (\(id), \(game))")
        return id
    }

    /// Waits until another connection waits on a lock that the backend `holderPID` holds.
    func waitForLockWaiter(blockedBy holderPID: Int, _ what: String) async throws {
        try await eventually(what) {
            try await pool.query("""
                SELECT count(*)::int AS n FROM pg_stat_activity WHERE \(holderPID) = ANY(pg_blocking_pids(pid))
                """)[0].decode("n", as: Int.self) > 0
        }
    }

    /// Posts `body` while another transaction holds `statement`'s writes uncommitted, and
    /// commits them once the ingest waits on them (`waiting` names that moment if it never
    /// comes): not after a guessed delay, which a loaded machine can outlast before the ingest
    /// gets that far.
    func post(_ body: String, whileHolding statement: SQL, until waiting: String) async throws -> Reply? {
        try await pool.withConnection { holder in
            let holderPID = try await holder.query("SELECT pg_backend_pid() AS pid")[0].decode("pid", as: Int.self)
            try await holder.execute("BEGIN")
            try await holder.execute(statement)
            return try await withThrowingTaskGroup(of: Reply.self) { group in
                group.addTask { await self.post(body) }
                try await waitForLockWaiter(blockedBy: holderPID, waiting)
                try await holder.execute("COMMIT")
                return try await group.next()
            }
        }
    }

    /// Waits until `count` posts have taken their arrival time and so have joined the ingest
    /// queue. A post reads the endpoint's clock twice before it queues (validation, arrival);
    /// an unsigned key reads it nowhere else before then.
    func waitForArrivals(_ count: Int) async throws {
        try await eventually("\(count) posts arrive at the ingest queue") { clock.readings >= 2 * count }
    }

    /// Posts `body` through the router with the fixture's key (or `headers` as given).
    func post(_ body: String, headers: HTTPHeaders? = nil) async -> Reply {
        await post(Array(body.utf8), headers: headers)
    }

    /// Posts raw bytes.
    /// (Status 0 when no answer came: a test expecting any status then fails with the reason.)
    func post(_ body: [UInt8], headers: HTTPHeaders? = nil) async -> Reply {
        do {
            let response = try await TestClient.router(router).execute(
                .post, EventsEndpoint.path,
                headers: headers ?? ["Authorization": "Bearer \(token.text)", "Content-Type": "application/json"], body: body)
            return Reply(status: response.status, body: response.body)
        } catch {
            return Reply(status: 0, body: Array("no answer: \(error)".utf8))
        }
    }

    /// Row counts of the tables ingest writes.
    func counts() async throws -> [String: Int] {
        let row = try #require(try await pool.query("""
            SELECT (SELECT count(*) FROM events) AS events, (SELECT count(*) FROM games) AS games,
                   (SELECT count(*) FROM outbox) AS outbox,
                   (SELECT coalesce(sum(version), 0) FROM outbox) AS versions,
                   (SELECT count(*) FROM api_keys WHERE last_used_at IS NOT NULL) AS used_keys,
                   (SELECT coalesce(sum(applied_seq), 0) FROM games) AS seqs
            """).first)
        var counts: [String: Int] = [:]
        for name in ["events", "games", "outbox", "versions", "used_keys", "seqs"] { counts[name] = try row.decode(name, as: Int.self) }
        return counts
    }

    /// The outbox row of `channel`.
    func outbox(_ channel: Int64) async throws -> OutboxRow? {
        try await pool.query("""
            SELECT channel_id, version, payload, payload_timestamp, priority, alerting, event_ids, first_ingested_at,
                   coalesced, due_at, attempts, alerts
            FROM outbox WHERE channel_id = \(channel)
            """).first.map(OutboxRow.init)
    }

    /// The `events.id` of feed event `id`.
    func eventID(_ id: String, feed: String = "feed-a") async throws -> Int64? {
        try await pool.query("SELECT id FROM events WHERE feed = \(feed) AND feed_event_id = \(id)").first?.decode("id")
    }

    func close() async { await pool.close() }
}

/// An answer as a client sees it.
struct Reply: Sendable {
    let status: Int
    let body: [UInt8]

    var json: JSONValue { (try? JSONParser().parse(body)) ?? .null }
    var text: String { String(decoding: body, as: UTF8.self) }

    /// The outcomes by event id.
    var outcomes: [String: String] {
        var outcomes: [String: String] = [:]
        for result in json["results"]?.arrayValue ?? [] {
            if let id = result["id"]?.stringValue { outcomes[id] = result["outcome"]?.stringValue }
        }
        return outcomes
    }

    /// The `field` of every problem error.
    var fields: [String] { (json["errors"]?.arrayValue ?? []).compactMap { $0["field"]?.stringValue } }
}

/// An `outbox` row, decoded.
struct OutboxRow {
    let channelID: Int64
    let version: Int64
    let payload: JSONValue
    let payloadBytes: [UInt8]
    let payloadTimestamp: Int
    let priority: Int
    let alerting: Bool
    let eventIDs: [Int64]
    let firstIngestedAt: Date
    let coalesced: Int
    let dueAt: Date
    let attempts: Int
    /// `outbox.alerts`: the announcements queued beside the state, oldest first.
    let alerts: [JSONValue]

    init(row: PostgresRow) throws {
        channelID = try row.decode("channel_id")
        version = try row.decode("version")
        payloadBytes = [UInt8](try row.decode("payload", as: Data.self))
        payload = try JSONParser().parse(payloadBytes)
        payloadTimestamp = try row.decode("payload_timestamp")
        priority = try row.decode("priority")
        alerting = try row.decode("alerting")
        eventIDs = try row.decode("event_ids")
        firstIngestedAt = try row.decode("first_ingested_at")
        coalesced = try row.decode("coalesced")
        dueAt = try row.decode("due_at")
        attempts = try row.decode("attempts")
        alerts = try JSONParser().parse(try row.decode("alerts", as: PostgresJSON.self).bytes).arrayValue ?? []
    }

    var aps: JSONValue { payload["aps"] ?? .null }
    /// The alert the next send carries (the head of the queue).
    var headAlert: JSONValue? { alerts.first?["alert"] }
}

/// Event JSON for tests.
enum EventJSON {
    /// An RFC 3339 time `offset` seconds after the test clock's start.
    static func time(_ offset: Double = 0) -> String {
        let formatter = ISO8601DateFormatter()
        return formatter.string(from: IngestFixture.start.addingTimeInterval(offset))
    }

    /// One event as JSON text.
    static func event(
        id: String, game: String = "g1", seq: Int, at offset: Double = 0, kind: String = "clock",
        scoreboard: String? = nil, extra: String = ""
    ) -> String {
        var members = [
            "\"id\": \"\(id)\"", "\"game\": \"\(game)\"", "\"seq\": \(seq)", "\"occurredAt\": \"\(time(offset))\"",
            "\"kind\": \"\(kind)\"",
        ]
        if let scoreboard { members.append("\"scoreboard\": \(scoreboard)") }
        if !extra.isEmpty { members.append(extra) }
        return "{" + members.joined(separator: ", ") + "}"
    }

    /// A batch of events.
    static func batch(_ events: [String]) -> String {
        "{\"events\": [" + events.joined(separator: ", ") + "]}"
    }
}
