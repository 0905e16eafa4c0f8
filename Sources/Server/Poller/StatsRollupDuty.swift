import Foundation
import Postgres
import Statistics

/// Writes the per-minute statistics: `stats_minute` (sends by outcome and priority, coalesced,
/// downgraded, retried, throttled, latency percentiles per app), `stats_minute_reasons`
/// (failed attempts by APNs reason) and `stats_minute_events` (feed events accepted and stale),
/// from `deliveries` and `events`, with the definitions of `DeliveryAggregates`.
///
/// Each round recomputes the minutes `RollupRange` names — the last few closed ones and the
/// current one — in one transaction: rows are upserted and rows of those minutes that no
/// longer have data are removed, so running a round twice, or two leaders at once, changes
/// nothing. `stats_rollup_state.settled_before` then says which minutes are final.
package struct StatsRollupDuty: PollerDuty {
    /// `stats`.
    package let name = "stats"
    /// How often it runs.
    package let interval: Duration
    private let pool: PostgresPool

    /// Creates the duty.
    package init(pool: PostgresPool, interval: Duration) {
        self.pool = pool
        self.interval = interval
    }

    /// Rolls up the minutes due at `now`.
    package func run(at now: Date) async throws -> DutyReport {
        try await pool.withTransaction { connection in
            let state = try await connection.query("SELECT settled_before FROM stats_rollup_state FOR UPDATE")
            let previous = try state.first?.decode("settled_before", as: Date.self)
            var oldest: Date?
            if previous == nil {
                let rows = try await connection.query("""
                    SELECT least((SELECT min(sent_at) FROM deliveries), (SELECT min(received_at) FROM events)) AS oldest
                    """)
                oldest = try rows.first?.decode("oldest", as: Date?.self)
            }
            let range = RollupRange.plan(previous: previous, oldestData: oldest, now: now)
            let minutes = try await rollUpDeliveries(range, on: connection)
            let reasons = try await rollUpReasons(range, on: connection)
            let events = try await rollUpEvents(range, on: connection)
            try await connection.execute("""
                INSERT INTO stats_rollup_state (id, settled_before) VALUES (true, \(range.settledBefore))
                ON CONFLICT (id) DO UPDATE SET settled_before = EXCLUDED.settled_before
                """)
            let span = Int(range.to.timeIntervalSince(range.from) / 60)
            return DutyReport(counts: ["minutes": span, "app_minutes": minutes, "reason_rows": reasons, "event_rows": events])
        }
    }

    private func rollUpDeliveries(_ range: RollupRange, on connection: PostgresConnection) async throws -> Int {
        let columns = DeliveryAggregates.names.joined(separator: ", ")
        let updates = DeliveryAggregates.names.map { "\($0) = EXCLUDED.\($0)" }.joined(separator: ", ")
        let rows = try await connection.query("""
            WITH fresh AS (
                SELECT \(DeliveryAggregates.bucket("sent_at", seconds: 60)) AS minute, app_id, \(DeliveryAggregates.columns)
                FROM deliveries
                WHERE sent_at >= \(range.from) AND sent_at < \(range.to)
                GROUP BY 1, 2
            ), upserted AS (
                INSERT INTO stats_minute (minute, app_id, \(unsafeSQL: columns))
                SELECT minute, app_id, \(unsafeSQL: columns) FROM fresh
                ON CONFLICT (minute, app_id) DO UPDATE SET \(unsafeSQL: updates)
                RETURNING 1
            ), removed AS (
                DELETE FROM stats_minute s
                WHERE s.minute >= \(range.from) AND s.minute < \(range.to)
                  AND NOT EXISTS (SELECT 1 FROM fresh f WHERE f.minute = s.minute AND f.app_id = s.app_id)
                RETURNING 1
            )
            SELECT (SELECT count(*) FROM upserted)::int AS n, (SELECT count(*) FROM removed)::int AS removed
            """)
        return try rows.first?.decode("n", as: Int.self) ?? 0
    }

    private func rollUpReasons(_ range: RollupRange, on connection: PostgresConnection) async throws -> Int {
        let rows = try await connection.query("""
            WITH fresh AS (
                SELECT \(DeliveryAggregates.bucket("sent_at", seconds: 60)) AS minute, app_id, \(DeliveryAggregates.reason) AS reason,
                       count(*) AS n
                FROM deliveries
                WHERE sent_at >= \(range.from) AND sent_at < \(range.to) AND outcome <> 'sent'
                GROUP BY 1, 2, 3
            ), upserted AS (
                INSERT INTO stats_minute_reasons (minute, app_id, reason, count)
                SELECT minute, app_id, reason, n FROM fresh
                ON CONFLICT (minute, app_id, reason) DO UPDATE SET count = EXCLUDED.count
                RETURNING 1
            ), removed AS (
                DELETE FROM stats_minute_reasons s
                WHERE s.minute >= \(range.from) AND s.minute < \(range.to)
                  AND NOT EXISTS (SELECT 1 FROM fresh f WHERE f.minute = s.minute AND f.app_id = s.app_id AND f.reason = s.reason)
                RETURNING 1
            )
            SELECT (SELECT count(*) FROM upserted)::int AS n, (SELECT count(*) FROM removed)::int AS removed
            """)
        return try rows.first?.decode("n", as: Int.self) ?? 0
    }

    /// `accepted` and `stale` only: `duplicate` and `rejected` are added by ingest and kept.
    private func rollUpEvents(_ range: RollupRange, on connection: PostgresConnection) async throws -> Int {
        let rows = try await connection.query("""
            WITH fresh AS (
                SELECT \(DeliveryAggregates.bucket("received_at", seconds: 60)) AS minute, outcome, count(*) AS n
                FROM events
                WHERE received_at >= \(range.from) AND received_at < \(range.to)
                GROUP BY 1, 2
            ), upserted AS (
                INSERT INTO stats_minute_events (minute, outcome, count)
                SELECT minute, outcome, n FROM fresh
                ON CONFLICT (minute, outcome) DO UPDATE SET count = EXCLUDED.count
                RETURNING 1
            ), removed AS (
                DELETE FROM stats_minute_events s
                WHERE s.minute >= \(range.from) AND s.minute < \(range.to) AND s.outcome IN ('accepted', 'stale')
                  AND NOT EXISTS (SELECT 1 FROM fresh f WHERE f.minute = s.minute AND f.outcome = s.outcome)
                RETURNING 1
            )
            SELECT (SELECT count(*) FROM upserted)::int AS n, (SELECT count(*) FROM removed)::int AS removed
            """)
        return try rows.first?.decode("n", as: Int.self) ?? 0
    }
}
