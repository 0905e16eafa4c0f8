import Foundation

/// A channel's single pending outbox row, as a value: what will be sent and when.
///
/// The Postgres row stores these fields (the payload as ``LiveActivityPayload/jsonValue``);
/// leases, versions and fencing stay in SQL.
public struct OutboxEntry: Sendable, Hashable {
    /// The payload to send: the newest state, with the alert any coalesced event asked for.
    public var payload: LiveActivityPayload
    /// The exact bytes of ``payload``, checked for a broadcast.
    public var body: [UInt8]
    /// The strongest priority any coalesced update wanted.
    public var priority: BroadcastPriority
    /// The feed events whose updates this row carries, oldest first (at most ``maximumEventIDs``, newest kept).
    public var eventIDs: [String]
    /// How many pending updates were replaced by newer ones in this row.
    public var coalesced: Int
    /// When it may be sent.
    public var dueAt: Date
    /// No attempt before this time (a retry's backoff); survives merges.
    public var notBefore: Date?
    /// Attempts made so far; survives merges, so a channel in trouble keeps backing off.
    public var attempts: Int
    /// When the oldest update in the row was queued, for ingest-to-send latency.
    public var enqueuedAt: Date

    /// Most event ids remembered per row.
    public static let maximumEventIDs = 100

    /// Creates an entry.
    public init(
        payload: LiveActivityPayload, body: [UInt8], priority: BroadcastPriority, eventIDs: [String],
        coalesced: Int = 0, dueAt: Date, notBefore: Date? = nil, attempts: Int = 0, enqueuedAt: Date
    ) {
        self.payload = payload
        self.body = body
        self.priority = priority
        self.eventIDs = eventIDs
        self.coalesced = coalesced
        self.dueAt = dueAt
        self.notBefore = notBefore
        self.attempts = attempts
        self.enqueuedAt = enqueuedAt
    }

    /// A new row for `update`, due at `dueAt` (from ``ShapingPolicy``), queued at `now`.
    public init(update: RenderedUpdate, dueAt: Date, now: Date) {
        self.init(
            payload: update.payload, body: update.body, priority: update.priority,
            eventIDs: update.eventID.map { [$0] } ?? [], dueAt: dueAt, enqueuedAt: now
        )
    }

    /// Whether the alert of ``payload`` is there (the row is alerting).
    public var isAlerting: Bool { payload.alert != nil }

    /// The earliest time a worker may claim the row: ``dueAt``, or later while backing off.
    public var claimableAt: Date {
        guard let notBefore else { return dueAt }
        return max(dueAt, notBefore)
    }
}
