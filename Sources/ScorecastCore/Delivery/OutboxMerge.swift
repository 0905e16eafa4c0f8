import Foundation

/// Coalescing: a newly rendered update meets the channel's pending row, and one row comes out.
///
/// A Live Activity only ever shows the newest state, so the newest payload wins; but nothing an
/// older pending update promised is lost:
/// - priority: the strongest of both (a pending goal at 10 stays 10 under a newer clock tick);
/// - alert: the newest update's own, else the pending one's (a goal's alert rides on the clock
///   tick that replaced it) — unless carrying it would make the body too large, then none;
/// - due time: the earlier of both, never before a retry's ``OutboxEntry/notBefore``;
/// - timestamp: never earlier than the pending one;
/// - attempts, backoff and first-queued time carry over; ``OutboxEntry/coalesced`` grows by one.
public enum OutboxMerge {
    /// Merges `update` (due at `dueAt`) into `pending`.
    public static func merge(pending: OutboxEntry, update: RenderedUpdate, dueAt: Date) -> OutboxEntry {
        var payload = update.payload
        payload.timestamp = max(payload.timestamp, pending.payload.timestamp)
        if payload.alert == nil {
            payload.alert = pending.payload.alert
        }
        var body = update.body
        if payload != update.payload {
            if let bytes = try? payload.encode(for: .broadcast) {
                body = bytes
            } else {
                // The inherited alert does not fit next to the newer state: send the newer state
                // as rendered (it was checked), without the older alert.
                var plain = update.payload
                plain.timestamp = payload.timestamp
                if let bytes = try? plain.encode(for: .broadcast) {
                    payload = plain
                    body = bytes
                } else {
                    payload = update.payload
                }
            }
        }
        var eventIDs = pending.eventIDs
        if let id = update.eventID { eventIDs.append(id) }
        if eventIDs.count > OutboxEntry.maximumEventIDs {
            eventIDs.removeFirst(eventIDs.count - OutboxEntry.maximumEventIDs)
        }
        return OutboxEntry(
            payload: payload,
            body: body,
            priority: max(pending.priority, update.priority),
            eventIDs: eventIDs,
            coalesced: pending.coalesced + 1,
            dueAt: min(pending.dueAt, dueAt),
            notBefore: pending.notBefore,
            attempts: pending.attempts,
            enqueuedAt: pending.enqueuedAt
        )
    }
}
