import DeliveryEngine
import Devices
import Foundation
import Postgres
import ScorecastCore

/// Deletes what is older than `SCORECAST_RETENTION_DAYS`: deliveries and events, and the
/// per-minute roll-ups and budget ledger entries of that age, in bounded batches (`PrunePlan`); and the
/// token path's priority-10 sends once they are past the activity budget's rolling hour.
///
/// Games keep their folded state; nothing references an event or delivery row by key, so
/// pruning never breaks a reference.
package struct PruneDuty: PollerDuty {
    /// `prune`.
    package let name = "prune"
    /// How often it runs.
    package let interval: Duration
    /// The retention and batch sizes.
    package let plan: PrunePlan
    private let pool: PostgresPool

    /// What is pruned: table, the time column the retention applies to, and how rows are picked.
    struct Target: Sendable {
        let table: String
        let timeColumn: String
        /// The key columns of a batch (`ctid` where the table has no single key).
        let key: String
        /// Rows younger than this stay whatever the retention (the budget ledger: a lowered
        /// limit needs its last 429 to recover from).
        var keepAtLeast: TimeInterval = 0
        /// Rows older than this go whatever the retention (sends that only a rolling budget
        /// window counts, and nothing else reads).
        var expiresAfter: TimeInterval?

        /// Rows stamped before this time go at `now` under `plan`.
        func cutoff(at now: Date, plan: PrunePlan) -> Date {
            if let expiresAfter { return now.addingTimeInterval(-expiresAfter) }
            return min(plan.cutoff(at: now), now.addingTimeInterval(-keepAtLeast))
        }
    }

    static let targets = [
        Target(table: "deliveries", timeColumn: "sent_at", key: "id"),
        Target(table: "events", timeColumn: "received_at", key: "id"),
        Target(table: "stats_minute", timeColumn: "minute", key: "ctid"),
        Target(table: "stats_minute_reasons", timeColumn: "minute", key: "ctid"),
        Target(table: "stats_minute_events", timeColumn: "minute", key: "ctid"),
        Target(table: "stats_minute_refusals", timeColumn: "minute", key: "ctid"),
        Target(table: "stats_minute_rescues", timeColumn: "minute", key: "ctid"),
        Target(table: "budget_ledger", timeColumn: "at", key: "ctid", keepAtLeast: BudgetPolicy().memorySeconds),
        Target(table: "activity_priority_sends", timeColumn: "sent_at", key: "ctid", expiresAfter: ActivityBudget.window),
    ]

    /// Creates the duty.
    package init(pool: PostgresPool, interval: Duration, plan: PrunePlan) {
        self.pool = pool
        self.interval = interval
        self.plan = plan
    }

    /// Prunes rows older than the retention at `now`.
    package func run(at now: Date) async throws -> DutyReport {
        var counts: [String: Int] = [:]
        for target in Self.targets {
            let cutoff = target.cutoff(at: now, plan: plan)
            var batches = 0
            var deleted = 0
            var last = 0
            repeat {
                // The table and column names are constants of this type, never input.
                last = try await pool.execute("""
                    DELETE FROM \(unsafeSQL: target.table) WHERE \(unsafeSQL: target.key) IN (
                        SELECT \(unsafeSQL: target.key) FROM \(unsafeSQL: target.table)
                        WHERE \(unsafeSQL: target.timeColumn) < \(cutoff)
                        LIMIT \(plan.batchSize)
                    )
                    """)
                batches += 1
                deleted += last
            } while plan.continues(afterBatches: batches, lastDeleted: last)
            counts[target.table] = deleted
        }
        return DutyReport(counts: counts)
    }
}
