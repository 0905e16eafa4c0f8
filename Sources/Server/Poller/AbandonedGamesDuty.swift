import Foundation
import Postgres

/// Retires games a feed created (an event for an unknown game) that never started or never
/// ended: no event arrived for `timeout` (`SCORECAST_FEED_GAME_TIMEOUT_HOURS`). They become
/// `cancelled`, so `RetireDuty` deletes their channels after the grace and they stop counting
/// against the app's channel limit. Games an admin created are left alone. Silence is measured
/// by arrival, not by the events' own times: a replay or backfill of old events is news.
package struct AbandonedGamesDuty: PollerDuty {
    /// `abandoned`.
    package let name = "abandoned"
    /// How often it runs.
    package let interval: Duration
    /// Silence after which a feed-created game that is not over is retired.
    package let timeout: Duration
    private let pool: PostgresPool

    /// Creates the duty.
    package init(pool: PostgresPool, interval: Duration, timeout: Duration) {
        self.pool = pool
        self.interval = interval
        self.timeout = timeout
    }

    /// Retires the feed-created games to which no event arrived for `timeout` before `now`.
    package func run(at now: Date) async throws -> DutyReport {
        let cutoff = now.addingTimeInterval(-Double(timeout.components.seconds))
        let rows = try await pool.query("""
            UPDATE games SET status = 'cancelled', finished_at = \(now), updated_at = \(now)
            WHERE created_by_feed IS NOT NULL
              AND status IN ('scheduled', 'live', 'suspended')
              AND coalesce(last_arrival_at, created_at) < \(cutoff)
            RETURNING id
            """)
        var report = DutyReport(counts: ["retired": rows.count])
        if !rows.isEmpty {
            let ids = try rows.prefix(10).map { try $0.decode("id", as: String.self) }
            report.warnings.append("retired \(rows.count) game(s) a feed created to which no event arrived for \(timeout.components.seconds / 3600) h: \(ids.joined(separator: ", "))\(rows.count > 10 ? ", …" : "")")
        }
        return report
    }
}
