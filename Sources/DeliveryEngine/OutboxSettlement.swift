import APNsCore
import Foundation

/// What a completed send leaves of its channel's outbox row: the other half of
/// ``OutboxMerge``, and the only place these rules are written.
///
/// Ingest merges into a row while a worker sends it (``OutboxMerge``: the newest state
/// replaces the sent one, alerts join the queue, events and the coalesced count grow). When the
/// send completes, what it carried comes off again and the rest stays pending. The store
/// computes each row's settlement here, on the row as the claim read it, and writes the result
/// fenced on that version; a row ingest changed meanwhile is read again under its lock and
/// settled again. The database only applies what this decides.
///
/// 1. **Operation.** A cancelled channel's row is deleted whatever its version, unless alerts
///    APNs never accepted wait in it: then it is only given back (its channel, gone, is never
///    claimed again; the channel that replaces it adopts the alerts). A finished send
///    deletes the row when it is still the claimed version and no alert is left (rule 2);
///    otherwise the row is *superseded*: it stays, holding only what the send did not carry.
///    A retry keeps the row for another attempt; a pause or a release only gives it back.
/// 2. **Alerts.** The alert the send settled (``Completed/sentAlertKey``) leaves the queue by
///    key; the others keep their order (ingest only appends, so it is still there).
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
public enum OutboxSettlement {
    /// What happens to the row (rule 1).
    public enum Operation: String, Sendable, CaseIterable {
        /// The row is deleted.
        case delete
        /// A finished send's row stays with what the send did not carry (rules 2–8).
        case superseded
        /// The row stays for another attempt (rule 8).
        case retry
        /// The row is only given back (a pause, a release).
        case release
    }

    /// What the send's outcome asks of its row.
    public enum Action: Sendable, Hashable {
        /// The send is over (accepted, or failed for good): the row is deleted if its version is
        /// still the claimed one and no alert is left; otherwise it keeps only what the send did
        /// not carry, so the new payload goes next.
        case finish
        /// Send again after `delay` seconds: attempts + 1, backoff in `not_before`, lease released.
        case retry(delay: Double, error: String)
        /// APNs says the channel does not exist: the channel becomes `gone`; its row is deleted
        /// whatever its version unless alerts APNs never accepted wait in it: then it is kept,
        /// unleased and never claimed again, until the channel that replaces it for the same
        /// game adopts those alerts.
        case cancelChannel
        /// The app's credentials were refused: the app is paused with `reason`, the row is kept
        /// (lease released) for when an admin resumes it.
        case pauseApp(reason: String)
        /// Nothing was sent (shutdown, cancellation): release the lease, change nothing else.
        case release
    }

    /// A completed send, as far as its row is concerned.
    public struct Completed: Sendable, Hashable {
        /// What the outcome asks of the row.
        public var action: Action
        /// The version the worker claimed (and sent).
        public var claimedVersion: Int64
        /// The events the claimed row carried.
        public var claimedEventIDs: [Int64]
        /// The claimed row's coalesced count.
        public var claimedCoalesced: Int
        /// When the row was claimed; `nil` when unknown.
        public var claimedAt: Date?
        /// The key of the queued alert the send settled (accepted, or refused for good).
        public var sentAlertKey: String?

        /// Creates a completed send.
        public init(
            action: Action, claimedVersion: Int64, claimedEventIDs: [Int64], claimedCoalesced: Int, claimedAt: Date?,
            sentAlertKey: String?
        ) {
            self.action = action
            self.claimedVersion = claimedVersion
            self.claimedEventIDs = claimedEventIDs
            self.claimedCoalesced = claimedCoalesced
            self.claimedAt = claimedAt
            self.sentAlertKey = sentAlertKey
        }
    }

    /// The part of an outbox row a completion decides on.
    public struct Row: Sendable, Hashable {
        /// `outbox.version`.
        public var version: Int64
        /// `outbox.alerts`, oldest first.
        public var alerts: [QueuedAlert]
        /// `outbox.alerting`.
        public var alerting: Bool
        /// `outbox.priority`.
        public var priority: BroadcastPriority
        /// `outbox.due_at`.
        public var dueAt: Date
        /// `outbox.not_before`.
        public var notBefore: Date?
        /// `outbox.attempts`.
        public var attempts: Int
        /// `outbox.last_error`.
        public var lastError: String?
        /// `outbox.event_ids`.
        public var eventIDs: [Int64]
        /// `outbox.coalesced`.
        public var coalesced: Int
        /// `outbox.first_ingested_at`.
        public var firstIngestedAt: Date

        /// Creates a row.
        public init(
            version: Int64, alerts: [QueuedAlert], alerting: Bool, priority: BroadcastPriority, dueAt: Date, notBefore: Date?,
            attempts: Int, lastError: String?, eventIDs: [Int64], coalesced: Int, firstIngestedAt: Date
        ) {
            self.version = version
            self.alerts = alerts
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

    /// Rule 1: what `completed` does to `row`.
    public static func operation(_ completed: Completed, row: Row) -> Operation {
        switch completed.action {
        case .cancelChannel: remainingAlerts(completed, row: row).isEmpty ? .delete : .release
        case .finish: row.version == completed.claimedVersion && remainingAlerts(completed, row: row).isEmpty ? .delete : .superseded
        case .retry: .retry
        case .pauseApp, .release: .release
        }
    }

    /// Rules 1–9: the row `completed` leaves (`nil`: deleted). `receivedAt` holds the receive
    /// time of the row's events that are still in `events`; `now` is the completion's time.
    public static func settle(
        _ completed: Completed, row: Row, receivedAt: [Int64: Date], now: Date, routineInterval: Double
    ) -> Row? {
        var kept = row
        switch operation(completed, row: row) {
        case .delete:
            return nil
        case .release:
            return kept
        case .retry:
            guard case .retry(let delay, let error) = completed.action else { return kept }
            kept.attempts += 1
            kept.notBefore = now.addingTimeInterval(max(0, delay))
            kept.lastError = error
            return kept
        case .superseded:
            let remaining = remainingAlerts(completed, row: row)
            let legacyAlert = row.alerting && row.alerts.isEmpty
            kept.alerts = remaining
            kept.alerting = !remaining.isEmpty || legacyAlert
            if !row.alerts.isEmpty && remaining.isEmpty { kept.priority = .opportunistic }
            if remaining.isEmpty && !legacyAlert { kept.dueAt = max(row.dueAt, now.addingTimeInterval(routineInterval)) }
            let sent = Set(completed.claimedEventIDs)
            kept.eventIDs = row.eventIDs.filter { !sent.contains($0) }
            if row.eventIDs.contains(where: sent.contains) { kept.coalesced = max(0, row.coalesced - completed.claimedCoalesced - 1) }
            kept.firstIngestedAt =
                kept.eventIDs.compactMap { receivedAt[$0] }.min()
                ?? [row.firstIngestedAt, completed.claimedAt].compactMap { $0 }.max() ?? row.firstIngestedAt
            kept.attempts = 0
            kept.notBefore = nil
            kept.lastError = nil
            return kept
        }
    }

    /// Rule 2: the row's alerts without the one the send settled.
    static func remainingAlerts(_ completed: Completed, row: Row) -> [QueuedAlert] {
        guard let sent = completed.sentAlertKey else { return row.alerts }
        return row.alerts.filter { $0.key != sent }
    }
}
