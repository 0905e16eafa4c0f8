import Foundation
import ScorecastCore

/// Coalescing: a newly rendered update meets the channel's pending row, and one row comes out.
///
/// Coalescing merges state, never announcements:
/// - state: the newest payload wins (a Live Activity only shows the newest), its timestamp
///   never earlier than the pending one;
/// - alerts: the update's alert joins the end of the queue; none is replaced or merged away
///   (past ``OutboxEntry/maximumAlerts`` the oldest is dropped and counted);
/// - priority: 10 while an alert waits, else the update's own;
/// - due time: the earlier of both;
/// - retry state: reset — attempts and backoff belong to the older content's attempt and
///   never hold back a newer update (APNs' own `Retry-After` after a 429 is kept apart, in
///   the channel's budget ledger, and only bars priority 10);
/// - first-queued time carries over; ``OutboxEntry/coalesced`` grows by one.
///
/// A row being sent is merged into too: its head alert is in flight and leaves the queue when
/// the send's fenced completion removes it by key; the rest stays pending. What a completion
/// takes off again is the other half of these rules: `OutboxSettlement` (in the app module).
public enum OutboxMerge {
    /// Merges `update` (due at `dueAt`, queued at `now`) into `pending`.
    public static func merge(pending: OutboxEntry, update: RenderedUpdate, dueAt: Date, now: Date) -> OutboxEntry {
        var (payload, body, alert) = OutboxEntry.split(update, now: now)
        if payload.timestamp < pending.payload.timestamp {
            payload.timestamp = pending.payload.timestamp
            body = (try? payload.encode(for: .broadcast)) ?? body
        }
        var alerts = pending.alerts
        // A row stored by an older version carries its alert in the payload: it joins the queue first.
        if alerts.isEmpty, let legacy = pending.payload.alert {
            alerts.append(QueuedAlert(key: pending.eventIDs.last ?? "t\(pending.payload.timestamp)", alert: legacy, queuedAt: pending.enqueuedAt))
        }
        if let alert, !alerts.contains(where: { $0.key == alert.key }) { alerts.append(alert) }
        var dropped = pending.alertsDropped
        if alerts.count > OutboxEntry.maximumAlerts {
            dropped += alerts.count - OutboxEntry.maximumAlerts
            alerts.removeFirst(alerts.count - OutboxEntry.maximumAlerts)
        }
        var eventIDs = pending.eventIDs
        if let id = update.eventID { eventIDs.append(id) }
        if eventIDs.count > OutboxEntry.maximumEventIDs {
            eventIDs.removeFirst(eventIDs.count - OutboxEntry.maximumEventIDs)
        }
        var merged = OutboxEntry(
            payload: payload,
            body: body,
            priority: alerts.isEmpty ? update.priority : .immediate,
            alerts: alerts,
            eventIDs: eventIDs,
            coalesced: pending.coalesced + 1,
            dueAt: min(pending.dueAt, dueAt),
            notBefore: nil,
            attempts: 0,
            enqueuedAt: pending.enqueuedAt
        )
        merged.alertsDropped = dropped
        return merged
    }
}
