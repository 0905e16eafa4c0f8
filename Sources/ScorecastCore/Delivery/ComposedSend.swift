import APNsCore
import JSON

/// The exact body of one broadcast: the row's stored state, the alert at the head of its queue,
/// and a timestamp that never goes backwards on the channel. Pure.
///
/// - A send without an alert carries the stored bytes untouched unless the channel was already
///   sent a later timestamp (then it is raised to that one).
/// - A send with an alert carries a timestamp above the channel's last one: two goals of the
///   same second are two sends of the same state, and a device keeps an update only when it is
///   newer than what it shows, so the second one is raised by a second.
/// - An alert that does not fit beside the state (the body would pass 5,120 bytes) is left out
///   and reported (``alertSent`` false): the state still goes.
public struct ComposedSend: Sendable, Hashable {
    /// The bytes to send.
    public var body: [UInt8]
    /// Their `aps.timestamp`.
    public var timestamp: Int
    /// Whether the alert asked for is in ``body``.
    public var alertSent: Bool

    /// Composes the send of `stored` (whose `aps.timestamp` is `storedTimestamp`) with `alert`
    /// for a channel whose newest sent timestamp is `channelLastTimestamp`.
    public static func compose(
        stored: [UInt8], storedTimestamp: Int, alert: LiveActivityAlert?, channelLastTimestamp: Int
    ) -> ComposedSend {
        let timestamp = alert == nil
            ? max(storedTimestamp, channelLastTimestamp)
            : max(storedTimestamp, channelLastTimestamp + 1)
        if alert == nil && timestamp == storedTimestamp {
            return ComposedSend(body: stored, timestamp: storedTimestamp, alertSent: false)
        }
        guard let parsed = try? JSONParser().parse(stored), var payload = try? LiveActivityPayload(jsonValue: parsed) else {
            // Unreadable stored bytes are sent as they are: APNs is the judge of them.
            return ComposedSend(body: stored, timestamp: storedTimestamp, alertSent: false)
        }
        payload.timestamp = timestamp
        if let alert {
            var alerted = payload
            alerted.alert = alert
            if let body = try? alerted.encode(for: .broadcast) {
                return ComposedSend(body: body, timestamp: timestamp, alertSent: true)
            }
        }
        guard let body = try? payload.encode(for: .broadcast) else {
            return ComposedSend(body: stored, timestamp: storedTimestamp, alertSent: false)
        }
        return ComposedSend(body: body, timestamp: timestamp, alertSent: false)
    }
}
