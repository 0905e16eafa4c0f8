import Clocks
import Foundation
import LeasedQueue
import Postgres
import ScorecastLogging
import ServiceBase

/// Makes outbox rows whose lease expired claimable again: a worker that died (or lost its
/// database connection) mid-send leaves its rows leased; clearing the lease puts them back in
/// line at once, visible to every worker, and counts them (`stats_minute_rescues`, and the
/// `scorecast_broadcasts_retried_total` counter).
///
/// The old holder cannot complete a rescued row afterwards: completions are fenced on the lease
/// owner. Rows locked by a transaction right now (a completion in progress) are skipped and
/// looked at next round.
package struct LeaseRescueDuty: PollerDuty {
    /// `rescue`.
    package let name = "rescue"
    /// How often it runs.
    package let interval: Duration
    /// At most this many rows per round.
    package let batchSize: Int
    private let pool: PostgresPool
    private let metrics: ScorecastMetrics?

    /// The channel workers listen on for new work (the workers' `WorkerSettings.defaultNotifyChannel`).
    static let outboxNotifyChannel = "scorecast_outbox"

    /// Creates the duty.
    package init(pool: PostgresPool, interval: Duration, batchSize: Int = 1_000, metrics: ScorecastMetrics? = nil) {
        self.pool = pool
        self.interval = interval
        self.batchSize = max(1, batchSize)
        self.metrics = metrics
    }

    /// Clears the expired leases (expired at `now`) and counts them per app and minute.
    package func run(at now: Date) async throws -> DutyReport {
        let rescued = try await pool.withTransaction { connection -> [(bundleID: String, appID: Int64, count: Int)] in
            // `updated_at` is an audit column (no rule reads it): it keeps the database's clock.
            let rescue = LeasedQueue.outbox.rescue(limit: batchSize, at: now, setting: "updated_at = now()", returning: "o.channel_id")
            let rows = try await connection.query("""
                WITH \(rescue)
                SELECT c.app_id, a.bundle_id, count(*)::int AS n
                FROM rescued JOIN channels c ON c.id = rescued.channel_id JOIN apps a ON a.id = c.app_id
                GROUP BY c.app_id, a.bundle_id
                """)
            let counts = try rows.map { (bundleID: try $0.decode("bundle_id", as: String.self), appID: try $0.decode("app_id", as: Int64.self),
                                        count: try $0.decode("n", as: Int.self)) }
            guard !counts.isEmpty else { return counts }
            try await connection.execute("""
                INSERT INTO stats_minute_rescues (minute, app_id, count)
                SELECT \(now.minuteStart), u.app_id, u.n
                FROM unnest(\(counts.map(\.appID))::bigint[], \(counts.map(\.count))::int[]) AS u(app_id, n)
                ON CONFLICT (minute, app_id) DO UPDATE SET count = stats_minute_rescues.count + EXCLUDED.count
                """)
            try await connection.execute("SELECT pg_notify(\(Self.outboxNotifyChannel), '')")
            return counts
        }
        for app in rescued { metrics?.retried.increment(AppLabels(app: app.bundleID), by: Double(app.count)) }
        let total = rescued.reduce(0) { $0 + $1.count }
        return DutyReport(
            counts: ["rescued": total],
            warnings: total >= batchSize ? ["\(total) expired leases rescued in one round (the batch limit): workers may be dying"] : [])
    }
}
