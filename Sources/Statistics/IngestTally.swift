import Clocks
import Foundation
import Postgres
import ServiceBase

/// Counts the feed events that leave no row in `events` — duplicates and rejected ones — per
/// minute in `stats_minute_events` (rejected ones by reason in `stats_minute_refusals` too), so
/// that `/v1/stats` can report them next to the accepted and stale events the poller rolls up.
/// Ingest calls `record` once per request (one statement).
package struct IngestTally: Sendable {
    let pool: PostgresPool

    /// Creates the tally on `pool`.
    package init(pool: PostgresPool) { self.pool = pool }

    /// Adds `duplicates` and `rejected` events received at `time`, the rejected ones refused for
    /// `reason` (counted by reason as well when it is given); zero counts write nothing.
    package func record(duplicates: Int, rejected: Int, reason: IngestRefusal? = nil, at time: Date) async throws {
        let outcomes = [("duplicate", duplicates), ("rejected", rejected)].filter { $0.1 > 0 }
        guard !outcomes.isEmpty else { return }
        let reasons = rejected > 0 ? reason.map { [$0.rawValue] } ?? [] : []
        try await pool.execute("""
            WITH refusals AS (
                INSERT INTO stats_minute_refusals (minute, reason, count)
                SELECT \(time.minuteStart), r.reason, \(rejected) FROM unnest(\(reasons)::text[]) AS r(reason)
                ON CONFLICT (minute, reason) DO UPDATE SET count = stats_minute_refusals.count + EXCLUDED.count
            )
            INSERT INTO stats_minute_events (minute, outcome, count)
            SELECT \(time.minuteStart), u.outcome, u.n
            FROM unnest(\(outcomes.map(\.0))::text[], \(outcomes.map(\.1))::int[]) AS u(outcome, n)
            ON CONFLICT (minute, outcome) DO UPDATE SET count = stats_minute_events.count + EXCLUDED.count
            """)
    }

    /// Refused events by reason between `from` (inclusive) and `to` (exclusive), most first.
    package func refusals(from: Date, to: Date) async throws -> [ReasonCount] {
        let rows = try await pool.query("""
            SELECT reason, sum(count)::int AS n FROM stats_minute_refusals
            WHERE minute >= \(from) AND minute < \(to) GROUP BY reason
            """)
        var counts: [String: Int] = [:]
        for row in rows { counts[try row.decode("reason")] = try row.decode("n", as: Int.self) }
        return ReasonCount.sorted(counts)
    }
}
