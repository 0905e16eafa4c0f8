import Foundation
import Postgres
import ScorecastCore

/// Rolls `channel_budget` into the new hour window and restores lowered limits as they recover
/// (see `BudgetWindowPlan`). The counts themselves — priority-10 sends, downgrades and 429s —
/// are written by the workers as they send; keeping one row per channel and window keeps them
/// per hour, and `PruneDuty` drops windows past the retention.
///
/// Writes never overwrite what a worker wrote meanwhile: a new window is inserted only if
/// missing, and a limit is changed only if the row still holds the limit and the 429 time read.
package struct BudgetWindowDuty: PollerDuty {
    /// `budgets`.
    package let name = "budgets"
    /// How often it runs.
    package let interval: Duration
    private let pool: PostgresPool
    private let standardPerHour: Int
    private let frequentPerHour: Int
    private let policy: BudgetPolicy

    /// How far back a channel's latest window is looked at: a lowered limit recovers within
    /// this (from 1 to 60 at 2 per hour takes 30 hours); older rows belong to idle channels.
    static let lookback: TimeInterval = 48 * 3600

    /// Creates the duty; `standardPerHour`/`frequentPerHour` are the profiles' budgets for apps
    /// without a budget of their own.
    package init(pool: PostgresPool, interval: Duration, standardPerHour: Int, frequentPerHour: Int, policy: BudgetPolicy = BudgetPolicy()) {
        self.pool = pool
        self.interval = interval
        self.standardPerHour = standardPerHour
        self.frequentPerHour = frequentPerHour
        self.policy = policy
    }

    /// Reads every live channel's latest window and applies the plan at `now`.
    package func run(at now: Date) async throws -> DutyReport {
        let rows = try await pool.query("""
            SELECT DISTINCT ON (b.channel_id)
                   b.channel_id, b.window_start, b.high_priority_sent, b.downgraded, b.throttled, b.budget_limit,
                   b.shrunk_limit, b.last_throttled_at,
                   COALESCE(a.budget_per_hour, CASE WHEN a.frequent_updates THEN \(frequentPerHour) ELSE \(standardPerHour) END) AS per_hour
            FROM channel_budget b
            JOIN channels c ON c.id = b.channel_id
            JOIN apps a ON a.id = c.app_id
            WHERE c.status IN ('active', 'retiring') AND b.window_start >= \(now.addingTimeInterval(-Self.lookback))
            ORDER BY b.channel_id, b.window_start DESC
            """)
        let latest = try rows.map { row in
            BudgetWindowPlan.Row(
                channelID: try row.decode("channel_id"), windowStart: try row.decode("window_start"),
                highPrioritySent: try row.decode("high_priority_sent"), downgraded: try row.decode("downgraded"),
                throttled: try row.decode("throttled"), budgetLimit: try row.decode("budget_limit"),
                shrunkLimit: try row.decode("shrunk_limit", as: Int?.self),
                lastThrottledAt: try row.decode("last_throttled_at", as: Date?.self), perHour: try row.decode("per_hour"))
        }
        let writes = BudgetWindowPlan.writes(for: latest, now: now, base: policy)
        var opens: [(Int64, Date, Int, Int?, Date?)] = []
        var limits: [(Int64, Date, Int, Int, Int?, Date?)] = []
        for write in writes {
            switch write {
            case let .open(channelID, windowStart, limit, shrunkLimit, lastThrottledAt):
                opens.append((channelID, windowStart, limit, shrunkLimit, lastThrottledAt))
            case let .setLimit(channelID, windowStart, from, to, shrunkLimit, lastThrottledAt):
                limits.append((channelID, windowStart, from, to, shrunkLimit, lastThrottledAt))
            }
        }
        var opened = 0
        var changed = 0
        for batch in opens.chunked(1_000) {
            opened += try await pool.execute("""
                INSERT INTO channel_budget (channel_id, window_start, budget_limit, shrunk_limit, last_throttled_at)
                SELECT * FROM unnest(\(batch.map(\.0))::bigint[], \(batch.map(\.1))::timestamptz[], \(batch.map(\.2))::int[],
                                     \(batch.map(\.3))::int[], \(batch.map(\.4))::timestamptz[])
                ON CONFLICT (channel_id, window_start) DO NOTHING
                """)
        }
        for batch in limits.chunked(1_000) {
            changed += try await pool.execute("""
                UPDATE channel_budget b SET budget_limit = u.limit_to, shrunk_limit = u.shrunk
                FROM unnest(\(batch.map(\.0))::bigint[], \(batch.map(\.1))::timestamptz[], \(batch.map(\.2))::int[],
                            \(batch.map(\.3))::int[], \(batch.map(\.4))::int[], \(batch.map(\.5))::timestamptz[])
                    AS u(channel_id, window_start, limit_from, limit_to, shrunk, throttled_at)
                WHERE b.channel_id = u.channel_id AND b.window_start = u.window_start
                  AND b.budget_limit = u.limit_from AND b.last_throttled_at IS NOT DISTINCT FROM u.throttled_at
                """)
        }
        let window = ScorecastCore.ChannelBudget.windowStart(containing: now, policy: policy)
        let totals = try await pool.query("""
            SELECT coalesce(sum(high_priority_sent), 0)::int AS sent, coalesce(sum(downgraded), 0)::int AS downgraded,
                   coalesce(sum(throttled), 0)::int AS throttled,
                   count(*) FILTER (WHERE high_priority_sent >= budget_limit)::int AS exhausted
            FROM channel_budget WHERE window_start = \(window)
            """)
        let total = totals.first
        return DutyReport(counts: [
            "windows_opened": opened, "limits_changed": changed,
            "hour_priority10": try total?.decode("sent", as: Int.self) ?? 0,
            "hour_downgraded": try total?.decode("downgraded", as: Int.self) ?? 0,
            "hour_throttled": try total?.decode("throttled", as: Int.self) ?? 0,
            "hour_exhausted_channels": try total?.decode("exhausted", as: Int.self) ?? 0,
        ])
    }
}

extension Array {
    /// The elements in consecutive slices of at most `size`.
    func chunked(_ size: Int) -> [ArraySlice<Element>] {
        stride(from: 0, to: count, by: Swift.max(1, size)).map { self[$0..<Swift.min($0 + Swift.max(1, size), count)] }
    }
}
