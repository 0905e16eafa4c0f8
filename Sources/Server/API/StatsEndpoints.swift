import APNsCore
import Clocks
import Foundation
import HTTPServer
import Postgres
import PrometheusMetrics
import Registry
import ScorecastCore
import ScorecastLogging
import ServiceBase
import Statistics

/// The statistics API, `/metrics` and the dashboard page:
///
/// - `GET /v1/stats?window=15m` — totals and a per-minute series (`StatsResponse`);
/// - `GET /v1/stats/live` — games in play, channels closest to their budget, latest deliveries;
/// - `GET /v1/games/{id}/live` — one game's channels, budgets, latest deliveries and pending alerts;
/// - `GET /v1/channels/{id}/stats`, `/v1/games/{id}/stats`,
///   `/v1/apps/{bundle-id}/stats[?environment=…]` — scoped figures, budgets, channel usage;
/// - `GET /metrics` — Prometheus text (`MetricsEndpoint`);
/// - `GET /dashboard` — the built-in page (`DashboardPage`: the page, its style sheet and script).
///
/// Every one of them is an operator route: guarded by `access` (`SCORECAST_OPS_TOKEN`).
/// A malformed `window` is a `400` naming it; an unknown channel, game or app a `404`; a
/// database that does not answer a `503`.
package struct StatsEndpoints: Sendable {
    let query: StatsQuery
    let registry: MetricsRegistry
    let refresher: MetricsRefresher?
    let access: OpsAccess
    let clock: any ServiceClock
    /// Database failures, summarised: while the database is away every read fails alike.
    let repeats: RepeatLog

    /// Creates the endpoints. `refresher` may be nil when the database gauges are not wanted
    /// (its gauge can be registered once per registry).
    package init(
        query: StatsQuery, registry: MetricsRegistry, refresher: MetricsRefresher?, access: OpsAccess = OpsAccess(token: nil),
        clock: any ServiceClock = SystemServiceClock(), logger: Logger = Logger(label: "stats")
    ) {
        self.repeats = RepeatLog(logger: logger.named("stats"), clock: clock)
        self.access = access
        self.query = query
        self.registry = registry
        self.refresher = refresher
        self.clock = clock
    }

    /// Adds every route to `router`.
    package func register(on router: inout Router) {
        let ops = access.gate
        access.registerLogin(on: &router)
        router.get("/v1/stats", gate: ops) { request in
            let window = try Self.window(request)
            return try .json(try await guarded(request) { try await query.overview(window: window, now: clock.now()) })
        }
        router.get("/v1/stats/live", gate: ops) { request in
            try .json(try await guarded(request) { try await query.live(now: clock.now()) })
        }
        router.get("/v1/channels/{id}/stats", gate: ops) { request in
            let id = try request.pathParameter("id")
            let window = try Self.window(request)
            guard let answer = try await guarded(request, { try await query.channel(id, window: window, now: clock.now()) }) else {
                throw Problem.notFound("there is no channel \(id)")
            }
            return try .json(answer)
        }
        router.get("/v1/games/{id}/stats", gate: ops) { request in
            let id = try request.pathParameter("id")
            let window = try Self.window(request)
            guard let answer = try await guarded(request, { try await query.game(id, window: window, now: clock.now()) }) else {
                throw Problem.notFound("there is no game \(id)")
            }
            return try .json(answer)
        }
        router.get("/v1/games/{id}/live", gate: ops) { request in
            let id = try request.pathParameter("id")
            guard let answer = try await guarded(request, { try await query.gameLive(id, now: clock.now()) }) else {
                throw Problem.notFound("there is no game \(id)")
            }
            return try .json(answer)
        }
        router.get("/v1/apps/{bundle-id}/stats", gate: ops) { request in
            let bundleID = try request.pathParameter("bundle-id")
            let window = try Self.window(request)
            var environment: APNsEnvironment?
            if let name = request.query("environment") {
                guard let value = APNsEnvironment(rawValue: name) else {
                    throw Problem.badRequest(
                        "environment must be sandbox or production", errors: [.init(field: "environment", detail: "must be sandbox or production")])
                }
                environment = value
            }
            do {
                guard let answer = try await guarded(request, {
                    try await query.app(bundleID: bundleID, environment: environment, window: window, now: clock.now())
                }) else {
                    throw Problem.notFound("there is no app \(bundleID)\(environment.map { " in \($0.rawValue)" } ?? "")")
                }
                return try .json(answer)
            } catch let error as RegistryError where error.code == .invalidInput {
                throw Problem.badRequest(
                    "\(bundleID) exists in sandbox and production: choose one with ?environment=",
                    errors: [.init(field: "environment", detail: "is required for this bundle id")])
            }
        }
        MetricsEndpoint(registry: registry, refresher: refresher, access: access, repeats: repeats).register(on: &router)
        DashboardPage.register(on: &router, gate: access.dashboardGate)
    }

    /// The `window` query parameter, 15 minutes when absent; a `400` naming it when malformed.
    static func window(_ request: HTTPRequest) throws -> StatsWindow {
        guard let text = request.query("window") else { return .default }
        do throws(StatsWindowError) {
            return try StatsWindow(parsing: text)
        } catch {
            throw Problem.badRequest(error.description, errors: [.init(field: error.field, detail: error.description)])
        }
    }

    /// Runs a read, turning database failures into `503`.
    private func guarded<T: Sendable>(_ request: HTTPRequest, _ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as PostgresError {
            repeats.error("statistics read failed", ["error": error.message])
            throw Problem.serviceUnavailable("the statistics are unavailable: the database did not answer")
        }
    }
}
