import Foundation
import Postgres

/// Sets the database-backed gauges of `/metrics` just before each scrape: outbox queue depth,
/// how long the oldest due row has waited, rows leased to workers right now, and channels per
/// app. Two small queries: the outbox holds at most one row per channel.
///
/// `scorecast_outbox_leased` is registered here: it is shared state of every instance, unlike
/// the in-process `scorecast_sends_in_flight` that each worker pool keeps.
public struct MetricsRefresher: Sendable {
    let pool: PostgresPool
    let metrics: ScorecastMetrics
    let leased: Gauge<NoLabels>

    /// Creates the refresher and registers `scorecast_outbox_leased` in `registry`.
    public init(pool: PostgresPool, metrics: ScorecastMetrics, registry: MetricsRegistry) throws(MetricsError) {
        self.pool = pool
        self.metrics = metrics
        self.leased = try registry.gauge(
            "scorecast_outbox_leased", help: "Outbox rows leased to a worker (being sent) across all instances.")
    }

    /// Reads the gauges' values from the database.
    public func refresh() async throws {
        let queue = try await pool.query("""
            SELECT (SELECT count(*) FROM outbox)::int AS pending,
                   (SELECT count(*) FROM outbox WHERE lease_owner IS NOT NULL AND lease_expires_at > now())::int AS leased,
                   (SELECT coalesce(EXTRACT(EPOCH FROM now() - min(greatest(due_at, coalesce(not_before, due_at)))), 0)::float8
                    FROM outbox
                    WHERE due_at <= now() AND (not_before IS NULL OR not_before <= now())
                      AND (lease_owner IS NULL OR lease_expires_at <= now())) AS oldest
            """)
        if let row = queue.first {
            metrics.queueDepth.set(to: Double(try row.decode("pending", as: Int.self)))
            leased.set(to: Double(try row.decode("leased", as: Int.self)))
            metrics.oldestPendingAge.set(to: max(0, try row.decode("oldest", as: Double.self)))
        }
        let channels = try await pool.query("""
            SELECT a.bundle_id, count(c.id)::int AS n
            FROM apps a LEFT JOIN channels c ON c.app_id = a.id AND c.status IN ('active', 'retiring')
            GROUP BY a.bundle_id
            """)
        var perApp: [AppLabels: Double] = [:]
        for row in channels {
            perApp[AppLabels(app: try row.decode("bundle_id")), default: 0] += Double(try row.decode("n", as: Int.self))
        }
        metrics.channels.replaceAll(perApp)
    }
}
