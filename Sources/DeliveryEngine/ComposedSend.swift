import APNsCore
import JSON
import ScorecastCore

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
/// - `end` goes only with the last send the row owes: while alerts wait behind this one, an
///   ending state goes as an `update` (no `dismissal-date`), because a phone drops whatever
///   reaches an activity after its `end`.
/// - An `end` carries the `dismissal-date` of its send (``DismissalDate``), not the one stored
///   when the final was ingested: an `end` held back by an outage would otherwise arrive with
///   its date already past, and the phone would remove the activity at once.
/// - A send without an alert that shows what the channel's last accepted send showed (the same
///   event and content-state, ``ShownState``) is marked ``repeatsLastAccepted``: it is not sent.
public struct ComposedSend: Sendable, Hashable {
    /// The bytes to send.
    public var body: [UInt8]
    /// Their `aps.timestamp`.
    public var timestamp: Int
    /// Whether the alert asked for is in ``body``.
    public var alertSent: Bool
    /// What ``body`` shows (`nil` when the stored bytes are unreadable, or carry an alert of their own).
    public var shown: ShownState?
    /// Whether this send would repeat the channel's last accepted one: it carries no alert and
    /// shows what that one showed. It is not sent (a phone gains nothing from it, and the
    /// channel's budget and APNs' patience are spent for nothing).
    public var repeatsLastAccepted: Bool

    /// Creates a composed send.
    public init(body: [UInt8], timestamp: Int, alertSent: Bool, shown: ShownState?, repeatsLastAccepted: Bool = false) {
        self.body = body
        self.timestamp = timestamp
        self.alertSent = alertSent
        self.shown = shown
        self.repeatsLastAccepted = repeatsLastAccepted
    }

    /// Composes the send of `stored` (whose `aps.timestamp` is `storedTimestamp`) with `alert`
    /// for a channel whose newest sent timestamp is `channelLastTimestamp` and whose last
    /// accepted send showed `lastAccepted`; `alertsAfter` alerts still wait behind `alert` in the
    /// row's queue. `dismissalDate` is the one an `end` sent now carries (`nil` keeps the stored one).
    public static func compose(
        stored: [UInt8], storedTimestamp: Int, alert: LiveActivityAlert?, alertsAfter: Int = 0, channelLastTimestamp: Int,
        lastAccepted: ShownState? = nil, dismissalDate: Int? = nil
    ) -> ComposedSend {
        var send = composeBody(
            stored: stored, storedTimestamp: storedTimestamp, alert: alert, alertsAfter: alertsAfter,
            channelLastTimestamp: channelLastTimestamp, dismissalDate: dismissalDate)
        send.repeatsLastAccepted = alert == nil && send.shown != nil && send.shown == lastAccepted
        return send
    }

    private static func composeBody(
        stored: [UInt8], storedTimestamp: Int, alert: LiveActivityAlert?, alertsAfter: Int, channelLastTimestamp: Int,
        dismissalDate: Int?
    ) -> ComposedSend {
        let timestamp = alert == nil
            ? max(storedTimestamp, channelLastTimestamp)
            : max(storedTimestamp, channelLastTimestamp + 1)
        guard let parsed = try? JSONParser().parse(stored), var payload = try? LiveActivityPayload(jsonValue: parsed) else {
            // Unreadable stored bytes are sent as they are: APNs is the judge of them.
            return ComposedSend(body: stored, timestamp: storedTimestamp, alertSent: false, shown: nil)
        }
        // A row stored by an older version may carry its alert in the state: never a repeat.
        let storedShown = payload.alert == nil ? ShownState(payload: payload) : nil
        let restamped = payload.event == .end ? dismissalDate ?? payload.dismissalDate : nil
        if alert == nil && timestamp == storedTimestamp && restamped == payload.dismissalDate {
            return ComposedSend(body: stored, timestamp: storedTimestamp, alertSent: false, shown: storedShown)
        }
        payload.timestamp = timestamp
        payload.dismissalDate = restamped
        if alert != nil && alertsAfter > 0 && payload.event == .end {
            payload.event = .update
            payload.dismissalDate = nil
        }
        let shown = payload.alert == nil ? ShownState(payload: payload) : nil
        if let alert {
            var alerted = payload
            alerted.alert = alert
            if let body = try? alerted.encode(for: .broadcast) {
                return ComposedSend(body: body, timestamp: timestamp, alertSent: true, shown: shown)
            }
        }
        guard let body = try? payload.encode(for: .broadcast) else {
            return ComposedSend(body: stored, timestamp: storedTimestamp, alertSent: false, shown: storedShown)
        }
        return ComposedSend(body: body, timestamp: timestamp, alertSent: false, shown: shown)
    }
}
