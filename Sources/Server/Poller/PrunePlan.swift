import Foundation

/// How pruning proceeds, decided without I/O: the cutoff for the retention, and whether another
/// batch should be deleted in this round.
///
/// Deleting in bounded batches keeps each transaction short (no long lock on the tables the
/// workers and ingest write); a round stops after `maxBatches` so that other duties get their
/// turn, and the next round goes on where it stopped.
package struct PrunePlan: Sendable, Equatable {
    /// Rows older than this many days go.
    package var retentionDays: Int
    /// Rows per delete statement.
    package var batchSize: Int
    /// Delete statements per table and round at most.
    package var maxBatches: Int

    /// Creates a plan.
    package init(retentionDays: Int, batchSize: Int = 5_000, maxBatches: Int = 20) {
        self.retentionDays = max(1, retentionDays)
        self.batchSize = max(1, batchSize)
        self.maxBatches = max(1, maxBatches)
    }

    /// Rows stamped before this time are past the retention at `now`.
    package func cutoff(at now: Date) -> Date {
        now.addingTimeInterval(-Double(retentionDays) * 86_400)
    }

    /// Whether to delete another batch after `batches` batches, the last of which deleted
    /// `lastDeleted` rows: a short batch means nothing old is left.
    package func continues(afterBatches batches: Int, lastDeleted: Int) -> Bool {
        lastDeleted >= batchSize && batches < maxBatches
    }
}
