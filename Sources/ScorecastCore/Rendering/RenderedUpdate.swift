import APNsCore
/// One channel's Live Activity update, rendered from a game state: what goes into the outbox.
public struct RenderedUpdate: Sendable, Hashable {
    /// The payload, checked to fit a broadcast (content-state ≤ 4 KB, body ≤ 5,120 bytes).
    public var payload: LiveActivityPayload
    /// The exact body bytes of ``payload``.
    public var body: [UInt8]
    /// The priority the event asks for, before any budget downgrade.
    public var priority: BroadcastPriority
    /// Whether the update carries an alert (an alerting event).
    public var isAlerting: Bool
    /// The feed event that caused it, if any (a snapshot has none).
    public var eventID: String?

    /// Creates an update.
    public init(payload: LiveActivityPayload, body: [UInt8], priority: BroadcastPriority, isAlerting: Bool, eventID: String?) {
        self.payload = payload
        self.body = body
        self.priority = priority
        self.isAlerting = isAlerting
        self.eventID = eventID
    }

    /// `aps.timestamp` of the payload, to remember as the channel's last timestamp.
    public var timestamp: Int { payload.timestamp }
}
