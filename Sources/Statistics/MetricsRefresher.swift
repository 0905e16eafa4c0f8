import Clocks
import DeliveryEngine
import Foundation
import LeasedQueue
import Postgres
import PrometheusMetrics
import ScorecastCore
import ServiceBase

/// Sets the database-backed and memory gauges of `/metrics` just before each scrape: outbox queue depth,
/// how long the oldest due row has waited, rows leased to workers right now, channels per app,
/// paused apps, live games, when the feed last sent an event, and the channels whose priority-10
/// budget is spent (read from the budget ledger as sending and `/v1/stats` read it). Four small
/// queries: the outbox holds at most one row per channel, `events.received_at` and the ledger's
/// times are indexed.
///
/// The gauges registered here (`scorecast_outbox_leased`, `scorecast_apps_paused`,
/// `scorecast_games_live`, `scorecast_last_event_received_timestamp_seconds`,
/// `scorecast_channels_budget_spent`) are shared state
/// of every instance, unlike the in-process `scorecast_sends_in_flight` each worker pool keeps.
/// The process's own memory (`ProcessMemoryGauges`) is read first, so it is fresh even when the
/// database does not answer.
///
/// Because the database gauges say the same in every process, one process exports them
/// (`exportsDatabaseGauges`, in `serve` the poller's leader): summed across replicas they stay
/// right. The others neither read nor render them.
package struct MetricsRefresher: Sendable {
    let pool: PostgresPool
    let metrics: ScorecastMetrics
    let leased: Gauge<NoLabels>
    let paused: Gauge<AppLabels>
    let liveGames: Gauge<NoLabels>
    let lastEvent: Gauge<NoLabels>
    let budgetSpent: Gauge<AppLabels>
    let budgets: BudgetReader
    let refreshed: Gauge<NoLabels>
    let memory: ProcessMemoryGauges
    let clock: any ServiceClock
    /// How long a scrape waits for the database before serving the last values: short, since
    /// a scraper times out too.
    let readDeadline: Duration
    /// Whether this process exports the database gauges now.
    package let exportsDatabaseGauges: @Sendable () -> Bool

    /// Creates the refresher and registers its gauges in `registry`. `exportsDatabaseGauges`
    /// says, at each scrape, whether this process is the one that exports the database gauges;
    /// `budgetProfiles` are the ones the workers send with.
    package init(
        pool: PostgresPool, metrics: ScorecastMetrics, registry: MetricsRegistry, budgetProfiles: BudgetProfiles = BudgetProfiles(),
        exportsDatabaseGauges: @escaping @Sendable () -> Bool = { true }, clock: any ServiceClock = SystemServiceClock(),
        readDeadline: Duration = .milliseconds(1500)
    ) throws(MetricsError) {
        self.pool = pool
        self.readDeadline = readDeadline
        self.budgets = BudgetReader(pool: pool, profiles: budgetProfiles)
        self.clock = clock
        self.exportsDatabaseGauges = exportsDatabaseGauges
        self.metrics = metrics
        self.leased = try registry.gauge(
            "scorecast_outbox_leased", help: "Outbox rows leased to a worker (being sent) across all instances.")
        self.paused = try registry.gauge(
            "scorecast_apps_paused",
            help: "1 while APNs refused the app's credentials and its sends are paused (scorecast apps resume), else 0.",
            labels: AppLabels.self)
        self.liveGames = try registry.gauge("scorecast_games_live", help: "Games in play (status live or suspended).")
        self.lastEvent = try registry.gauge(
            "scorecast_last_event_received_timestamp_seconds",
            help: "UNIX time the newest stored feed event arrived (0 before the first): feed silence is time() minus this.")
        self.budgetSpent = try registry.gauge(
            "scorecast_channels_budget_spent",
            help: "Live channels whose priority-10 budget over the last hour is spent, or barred by a 429's Retry-After: their alerts go at priority 5.",
            labels: AppLabels.self)
        self.refreshed = try registry.gauge(
            "scorecast_database_gauges_refreshed_timestamp_seconds",
            help: "UNIX time the database-backed gauges were last read: older than the scrape when the database did not answer.")
        self.memory = try ProcessMemoryGauges(registry: registry)
    }

    /// The families of the database gauges: left out of `/metrics` by the processes that do
    /// not export them.
    package var databaseGaugeNames: Set<String> {
        [metrics.queueDepth.name, metrics.oldestPendingAge.name, metrics.channels.name,
         leased.name, paused.name, liveGames.name, lastEvent.name, budgetSpent.name, refreshed.name]
    }

    /// The families `/metrics` leaves out now: the database gauges unless this process exports them.
    package var omittedNow: Set<String> {
        exportsDatabaseGauges() ? [] : databaseGaugeNames
    }

    /// Reads the gauges' values from the database, within ``readDeadline``: when it does not
    /// answer in time, the gauges keep their last values and `refreshed` says how old they are.
    /// A process that does not export the database gauges reads only its own memory.
    package func refresh() async throws {
        memory.refresh()
        guard exportsDatabaseGauges() else { return }
        try await PostgresDeadline.within(readDeadline) { try await read() }
        refreshed.set(to: clock.now().timeIntervalSince1970)
    }

    /// Reads the gauges as of the clock's time, the time the workers lease and claim by.
    private func read() async throws {
        let now = clock.now()
        let queue = try await pool.query("""
            SELECT (SELECT count(*) FROM outbox)::int AS pending,
                   (SELECT count(*) FROM outbox o WHERE \(LeasedQueue.outbox.isHeld(at: now)))::int AS leased,
                   \(StatsQuery.oldestWaiting(at: now)) AS oldest
            """)
        if let row = queue.first {
            metrics.queueDepth.set(to: Double(try row.decode("pending", as: Int.self)))
            leased.set(to: Double(try row.decode("leased", as: Int.self)))
            metrics.oldestPendingAge.set(to: max(0, try row.decode("oldest", as: Double.self)))
        }
        let channels = try await pool.query("""
            SELECT a.bundle_id, count(c.id)::int AS n, bool_or(a.paused_at IS NOT NULL) AS paused
            FROM apps a LEFT JOIN channels c ON c.app_id = a.id AND c.status IN ('active', 'retiring')
            GROUP BY a.bundle_id
            """)
        var perApp: [AppLabels: Double] = [:]
        var pausedApps: [AppLabels: Double] = [:]
        for row in channels {
            let app = AppLabels(app: try row.decode("bundle_id"))
            perApp[app, default: 0] += Double(try row.decode("n", as: Int.self))
            // One row per bundle id: paused if either environment is.
            pausedApps[app] = try row.decode("paused", as: Bool.self) ? 1 : 0
        }
        metrics.channels.replaceAll(perApp)
        paused.replaceAll(pausedApps)
        var spent = perApp.mapValues { _ in 0.0 }
        for budget in try await budgets.budgets(.activeThisHour(appID: nil), now: now, limit: .max)
        where budget.remaining == 0 || budget.priority10BarredUntil != nil {
            spent[AppLabels(app: budget.app), default: 0] += 1
        }
        budgetSpent.replaceAll(spent)
        let feed = try await pool.query("""
            SELECT (SELECT count(*) FROM games WHERE status IN ('live', 'suspended'))::int AS live,
                   coalesce((SELECT EXTRACT(EPOCH FROM max(received_at)) FROM events), 0)::float8 AS last_event
            """)
        if let row = feed.first {
            liveGames.set(to: Double(try row.decode("live", as: Int.self)))
            lastEvent.set(to: try row.decode("last_event", as: Double.self))
        }
    }
}
