import Foundation
import Postgres

/// Counts the feed events that leave no row in `events` — duplicates and rejected ones — per
/// minute in `stats_minute_events`, so that `/v1/stats` can report them next to the accepted
/// and stale events the poller rolls up. Ingest calls `record` once per request (one upsert).
package struct IngestTally: Sendable {
    let pool: PostgresPool

    /// Creates the tally on `pool`.
    package init(pool: PostgresPool) { self.pool = pool }

    /// Adds `duplicates` and `rejected` events received at `time`; zero counts write nothing.
    package func record(duplicates: Int, rejected: Int, at time: Date) async throws {
        let outcomes = [("duplicate", duplicates), ("rejected", rejected)].filter { $0.1 > 0 }
        guard !outcomes.isEmpty else { return }
        try await pool.execute("""
            INSERT INTO stats_minute_events (minute, outcome, count)
            SELECT \(time.minuteStart), u.outcome, u.n
            FROM unnest(\(outcomes.map(\.0))::text[], \(outcomes.map(\.1))::int[]) AS u(outcome, n)
            ON CONFLICT (minute, outcome) DO UPDATE SET count = stats_minute_events.count + EXCLUDED.count
            """)
    }
}
