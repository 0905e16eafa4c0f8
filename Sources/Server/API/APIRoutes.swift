import Clocks
import HTTPServer
import Migrations
import Postgres
import PrometheusMetrics
import Registry
import ScorecastLogging
import ServiceBase
import Statistics

/// Every route `serve` answers, registered in one place, and the few that anyone may call.
///
/// Every other route has a `Gate` that checks its credentials on the headers — the operator
/// token, a feed key, an app's client key — and refuses a request without them before its
/// body is read. A test walks the router's table so that a new route cannot be left out.
package enum APIRoutes {
    /// The routes open to anyone, each with why (`METHOD /pattern` as the router's table
    /// lists it). `HEAD` follows `GET`.
    package static let publicRoutes: [String: String] = [
        "GET /healthz": "a liveness probe: says only that the process answers",
        "GET /readyz": "a readiness probe: says only whether the database answers and is migrated",
        "GET /v1/games/{id}/channels": "what iOS apps read to subscribe; channel ids are not secrets (subscribing needs the app's entitlement)",
        "GET /v1/games/{id}": "game reads for apps and widgets: public sports data, rate-limited per address",
        "GET /v1/games": "game listing for apps and widgets: public sports data, rate-limited per address",
        "POST /dashboard/login": "the login form's target: it checks the operator token it is given",
    ]

    /// The router for `serve` with the api role: health, the device API, ingest, channels,
    /// statistics, metrics and the dashboard. `exportsDatabaseGauges` says, at each scrape,
    /// whether this process exports the database-wide gauges (the poller's leader does); `clock`
    /// is the time ingest, the device API, the statistics and the gauges go by; `handOff`, where
    /// ingest hands goals to this process's workers, if it has any.
    package static func router(
        configuration: Configuration, pool: PostgresPool, migrator: Migrator,
        registry: MetricsRegistry, metrics: ScorecastMetrics,
        exportsDatabaseGauges: @escaping @Sendable () -> Bool = { true },
        unhealthyReason: @escaping @Sendable () -> String? = { nil }, logger: Logger,
        clock: any ServiceClock = SystemServiceClock(), handOff: AlertHandOff? = nil
    ) throws -> Router {
        let statsQuery = StatsQuery(pool: pool, configuration: configuration)
        var router = healthRouter(configuration: configuration, pool: pool, migrator: migrator, stats: statsQuery, unhealthyReason: unhealthyReason)
        let access = OpsAccess(token: configuration.opsToken)
        DeviceAPI.register(on: &router, pool: pool, settings: configuration.devices, access: access, clock: clock)
        EventsEndpoint(pool: pool, configuration: configuration, logger: logger, metrics: metrics, clock: clock, handOff: handOff)
            .register(on: &router)
        ChannelsEndpoint(pool: pool).register(on: &router)
        StatsEndpoints(
            query: statsQuery, registry: registry,
            refresher: try MetricsRefresher(
                pool: pool, metrics: metrics, registry: registry, budgetProfiles: configuration.budgetProfiles,
                exportsDatabaseGauges: exportsDatabaseGauges, clock: clock),
            access: access, clock: clock, logger: logger
        ).register(on: &router)
        return router
    }

    /// The router of a `serve` without the api role (the ops listener): `/healthz`, `/readyz`
    /// and `/metrics`, so that every role is probed and scraped.
    package static func opsRouter(
        configuration: Configuration, pool: PostgresPool, migrator: Migrator,
        registry: MetricsRegistry, metrics: ScorecastMetrics,
        exportsDatabaseGauges: @escaping @Sendable () -> Bool,
        unhealthyReason: @escaping @Sendable () -> String? = { nil }, logger: Logger,
        clock: any ServiceClock = SystemServiceClock()
    ) throws -> Router {
        var router = healthRouter(
            configuration: configuration, pool: pool, migrator: migrator,
            stats: StatsQuery(pool: pool, configuration: configuration), unhealthyReason: unhealthyReason)
        MetricsEndpoint(
            registry: registry,
            refresher: try MetricsRefresher(
                pool: pool, metrics: metrics, registry: registry, budgetProfiles: configuration.budgetProfiles,
                exportsDatabaseGauges: exportsDatabaseGauges, clock: clock),
            access: OpsAccess(token: configuration.opsToken), repeats: RepeatLog(logger: logger.named("stats"))
        ).register(on: &router)
        return router
    }

    /// What every router starts with: each request's wait on the database bounded, and
    /// `/healthz` and `/readyz`.
    private static func healthRouter(
        configuration: Configuration, pool: PostgresPool, migrator: Migrator, stats: StatsQuery,
        unhealthyReason: @escaping @Sendable () -> String?
    ) -> Router {
        var router = Router()
        router.use(RequestDatabaseDeadline(limit: configuration.databaseRequestTimeout).middleware)
        HealthEndpoints(pool: pool, migrator: migrator, stats: stats, unhealthyReason: unhealthyReason).register(on: &router)
        return router
    }
}
