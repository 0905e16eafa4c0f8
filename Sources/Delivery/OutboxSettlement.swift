import APNsCore
import Foundation

/// What a completed send leaves of its channel's outbox row: the other half of
/// ``OutboxMerge``, decided on the row as it stands under the completion's row lock.
///
/// Ingest merges into a row while a worker sends it (``OutboxMerge``: the newest state
/// replaces the sent one, alerts join the queue, events and the coalesced count grow). When the
/// send completes, what it carried comes off again and the rest stays pending. These are the
/// rules, written down once here; the completion statement
/// (``OutboxStore/complete(_:owner:routineInterval:)``) carries them out in SQL under the row
/// lock, one batch per round trip, with the names below (``Operation``,
/// ``DeliveryCompletion/RowAction``), and `OutboxSettlementTests` runs both on the same rows
/// against Postgres and requires the same result.
///
/// 1. **Operation.** A cancelled channel's row is deleted whatever its version, unless alerts
///    APNs never accepted wait in it: then it is only given back (its channel, gone, is never
///    claimed again; the channel that replaces it adopts the alerts). A finished send
///    deletes the row when it is still the claimed version and no alert is left (rule 2);
///    otherwise the row is *superseded*: it stays, holding only what the send did not carry.
///    A retry keeps the row for another attempt; a pause or a release only gives it back.
/// 2. **Alerts.** The alert the send settled (``DeliveryCompletion/sentAlertKey``) leaves the
///    queue by key; the others keep their order (ingest only appends, so it is still there).
/// 3. **Alerting.** A superseded row is alerting while an alert is left, or when it is a row
///    stored before the queue existed (alerting with an empty queue: its alert is in the payload).
/// 4. **Priority.** 10 only while an alert waits: a superseded row whose last queued alert the
///    send settled drops to 5; every other row keeps its own.
/// 5. **Due time.** A superseded row left with nothing to announce is routine, spaced as if the
///    channel sent just now: due no earlier than `now + routineInterval`. Others keep theirs.
/// 6. **Events and coalesced count.** The sent events leave a superseded row. When it still
///    lists any of them, ingest merged into the sent row: the sent row's coalesced count and
///    the sent row itself come off the count (never below 0). A fresh row written over the sent
///    one (none of its events) keeps its own count.
/// 7. **First ingested.** A superseded row's oldest remaining event's receive time; when none
///    is known, the later of the row's own time and the claim time (a lower bound).
/// 8. **Retry state.** A superseded row starts afresh (no attempts, backoff or error, as a
///    merge resets them); a retry counts the attempt, backs off `delay` seconds from `now` and
///    records the error; a release keeps them.
/// 9. **Lease.** Every kept row is given back: no lease, no claimed version.
package enum OutboxSettlement {
    /// What happens to the row (rule 1). The raw values name them in the completion statement.
    package enum Operation: String, Sendable, CaseIterable {
        /// The row is deleted.
        case delete
        /// A finished send's row stays with what the send did not carry (rules 2–8).
        case superseded = "finished"
        /// The row stays for another attempt (rule 8).
        case retry
        /// The row is only given back (a pause, a release).
        case release
    }

    /// The part of an outbox row a completion decides on.
    package struct Row: Sendable, Hashable {
        /// `outbox.version`.
        package var version: Int64
        /// The keys of `outbox.alerts`, oldest first.
        package var alertKeys: [String]
        /// `outbox.alerting`.
        package var alerting: Bool
        /// `outbox.priority` (5 or 10).
        package var priority: Int
        /// `outbox.due_at`.
        package var dueAt: Date
        /// `outbox.not_before`.
        package var notBefore: Date?
        /// `outbox.attempts`.
        package var attempts: Int
        /// `outbox.last_error`.
        package var lastError: String?
        /// `outbox.event_ids`.
        package var eventIDs: [Int64]
        /// `outbox.coalesced`.
        package var coalesced: Int
        /// `outbox.first_ingested_at`.
        package var firstIngestedAt: Date

        /// Creates a row.
        package init(
            version: Int64, alertKeys: [String], alerting: Bool, priority: Int, dueAt: Date, notBefore: Date?,
            attempts: Int, lastError: String?, eventIDs: [Int64], coalesced: Int, firstIngestedAt: Date
        ) {
            self.version = version
            self.alertKeys = alertKeys
            self.alerting = alerting
            self.priority = priority
            self.dueAt = dueAt
            self.notBefore = notBefore
            self.attempts = attempts
            self.lastError = lastError
            self.eventIDs = eventIDs
            self.coalesced = coalesced
            self.firstIngestedAt = firstIngestedAt
        }
    }

    /// Rule 1: what `completion` does to `row`.
    package static func operation(_ completion: DeliveryCompletion, row: Row) -> Operation {
        switch completion.action {
        case .cancelChannel: remainingAlerts(completion, row: row).isEmpty ? .delete : .release
        case .finish: row.version == completion.claimedVersion && remainingAlerts(completion, row: row).isEmpty ? .delete : .superseded
        case .retry: .retry
        case .pauseApp, .release: .release
        }
    }

    /// Rules 1–9: the row `completion` leaves (`nil`: deleted). `receivedAt` holds the receive
    /// time of the row's events that are still in `events`; `now` is the completion's time.
    package static func settle(
        _ completion: DeliveryCompletion, row: Row, receivedAt: [Int64: Date], now: Date, routineInterval: Double
    ) -> Row? {
        var kept = row
        switch operation(completion, row: row) {
        case .delete:
            return nil
        case .release:
            return kept
        case .retry:
            guard case .retry(let delay, let error) = completion.action else { return kept }
            kept.attempts += 1
            kept.notBefore = now.addingTimeInterval(max(0, delay))
            kept.lastError = error
            return kept
        case .superseded:
            let remaining = remainingAlerts(completion, row: row)
            let legacyAlert = row.alerting && row.alertKeys.isEmpty
            kept.alertKeys = remaining
            kept.alerting = !remaining.isEmpty || legacyAlert
            if !row.alertKeys.isEmpty && remaining.isEmpty { kept.priority = Int(BroadcastPriority.opportunistic.rawValue) }
            if remaining.isEmpty && !legacyAlert { kept.dueAt = max(row.dueAt, now.addingTimeInterval(routineInterval)) }
            let sent = Set(completion.claimedEventIDs)
            kept.eventIDs = row.eventIDs.filter { !sent.contains($0) }
            if row.eventIDs.contains(where: sent.contains) { kept.coalesced = max(0, row.coalesced - completion.claimedCoalesced - 1) }
            kept.firstIngestedAt =
                kept.eventIDs.compactMap { receivedAt[$0] }.min()
                ?? [row.firstIngestedAt, completion.claimedAt].compactMap { $0 }.max() ?? row.firstIngestedAt
            kept.attempts = 0
            kept.notBefore = nil
            kept.lastError = nil
            return kept
        }
    }

    /// Rule 2: the row's alert keys without the one the send settled.
    static func remainingAlerts(_ completion: DeliveryCompletion, row: Row) -> [String] {
        guard let sent = completion.sentAlertKey else { return row.alertKeys }
        return row.alertKeys.filter { $0 != sent }
    }
}
