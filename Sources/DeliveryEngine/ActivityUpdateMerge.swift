import APNsCore
import Foundation

/// Coalescing on the token path: a newly rendered update meets the activity's pending one, and
/// one update comes out. The store reads the pending row under its lock, merges here and
/// writes the result fenced on the version it read; the database decides nothing.
///
/// Coalescing merges state, never announcements away:
///
/// | field | merged |
/// |---|---|
/// | payload | the newer update's; when the pending one carries an alert not yet on its way (no lease) and the newer has none, the newer state with the pending alert |
/// | priority | the higher of both: it never weakens |
/// | alerting | either's |
/// | final | either's: the final whistle's claim on the budget's reserve never weakens |
/// | due time | the earlier of both |
///
/// An alert in flight is not copied: the send under way carries it, and a copy would announce
/// it twice. Attempts and the last error stay as the row holds them.
public enum ActivityUpdateMerge {
    /// Merges `update` into `pending` (`nil`: the activity has no pending update);
    /// `inFlight` when a sender holds the pending one's lease.
    public static func merge(pending: ActivityUpdate?, inFlight: Bool, update: ActivityUpdate) -> ActivityUpdate {
        guard let pending else { return update }
        var merged = update
        // "Has none" is read in the payload: a row merged while its alert was in flight stays
        // marked alerting without one.
        if !inFlight, update.payload.alert == nil, let alert = pending.payload.alert {
            var carried = update.payload
            carried.alert = alert
            // Both fit a device push on their own; together they nearly always do. If not,
            // the newer state goes alone rather than never.
            if (try? carried.encode(for: .device)) != nil { merged.payload = carried }
        }
        merged.priority = max(pending.priority, update.priority)
        merged.alerting = pending.alerting || update.alerting
        merged.final = pending.final || update.final
        merged.dueAt = min(pending.dueAt, update.dueAt)
        return merged
    }
}
