import APNsCore
import Foundation
import ScorecastCore

/// A channel's single pending outbox row, as a value: what will be sent and when.
///
/// The row holds the channel's newest state once (``payload``, without an alert) and, beside
/// it, the announcements not yet sent (``alerts``, oldest first): each send carries the state
/// current at its send and the head of the queue. The Postgres row stores these fields (the
/// payload as ``LiveActivityPayload/jsonValue``, the queue in `alerts`); leases, versions and
/// fencing stay in SQL.
public struct OutboxEntry: Sendable, Hashable {
    /// The newest state to send. Rows written by this version carry no alert here (they queue
    /// it in ``alerts``); a row stored by an older version may, and is sent as it is.
    public var payload: LiveActivityPayload
    /// The exact bytes of ``payload``, checked for a broadcast.
    public var body: [UInt8]
    /// The priority the row asks for: 10 while an alert waits, else the state's own.
    public var priority: BroadcastPriority
    /// Alerts not yet sent, oldest first (at most ``maximumAlerts``).
    public var alerts: [QueuedAlert]
    /// Alerts this entry's planning dropped because the queue was full (not stored: counted by ingest).
    public var alertsDropped: Int
    /// The feed events whose updates this row carries, oldest first (at most ``maximumEventIDs``, newest kept).
    public var eventIDs: [String]
    /// How many pending updates were replaced by newer ones in this row.
    public var coalesced: Int
    /// When it may be sent.
    public var dueAt: Date
    /// No attempt before this time: the backoff of the attempt that failed last. A newer
    /// update resets it (retry state belongs to an attempt, not to the channel's future).
    public var notBefore: Date?
    /// Failed attempts of the current content; a newer update starts again from 0.
    public var attempts: Int
    /// When the oldest update in the row was queued, for ingest-to-send latency.
    public var enqueuedAt: Date

    /// Most event ids remembered per row.
    public static let maximumEventIDs = 100
    /// Most alerts queued per channel; beyond it the oldest is dropped (and counted). A feed
    /// sends a handful of alerting events per game; this only bounds a runaway one.
    public static let maximumAlerts = 100

    /// Creates an entry.
    public init(
        payload: LiveActivityPayload, body: [UInt8], priority: BroadcastPriority, alerts: [QueuedAlert] = [],
        eventIDs: [String], coalesced: Int = 0, dueAt: Date, notBefore: Date? = nil, attempts: Int = 0, enqueuedAt: Date
    ) {
        self.payload = payload
        self.body = body
        self.priority = priority
        self.alerts = alerts
        self.alertsDropped = 0
        self.eventIDs = eventIDs
        self.coalesced = coalesced
        self.dueAt = dueAt
        self.notBefore = notBefore
        self.attempts = attempts
        self.enqueuedAt = enqueuedAt
    }

    /// A new row for `update`, due at `dueAt` (from ``ShapingPolicy``), queued at `now`: its
    /// state, and its alert (if any) queued.
    public init(update: RenderedUpdate, dueAt: Date, now: Date) {
        let (state, body, alert) = OutboxEntry.split(update, now: now)
        self.init(
            payload: state, body: body, priority: update.priority, alerts: alert.map { [$0] } ?? [],
            eventIDs: update.eventID.map { [$0] } ?? [], dueAt: dueAt, enqueuedAt: now
        )
    }

    /// Whether an announcement waits (the row is claimed before routine ones, at priority 10).
    public var isAlerting: Bool { !alerts.isEmpty || payload.alert != nil }

    /// The earliest time a worker may claim the row: ``dueAt``, or later while backing off.
    public var claimableAt: Date {
        guard let notBefore else { return dueAt }
        return max(dueAt, notBefore)
    }

    /// `update`'s state without its alert (and its bytes), and the alert as a queue element
    /// keyed by the update's event id. An update without an event id (a snapshot) keys its
    /// alert by its timestamp.
    static func split(_ update: RenderedUpdate, now: Date) -> (LiveActivityPayload, [UInt8], QueuedAlert?) {
        guard let alert = update.payload.alert else { return (update.payload, update.body, nil) }
        var state = update.payload
        state.alert = nil
        // Smaller than the checked payload it came from: it encodes.
        let body = (try? state.encode(for: .broadcast)) ?? update.body
        let key = update.eventID ?? "t\(update.payload.timestamp)"
        return (state, body, QueuedAlert(key: key, alert: alert, queuedAt: now))
    }
}
