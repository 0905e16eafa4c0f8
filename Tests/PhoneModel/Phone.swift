import Foundation
import ScorecastActivity

/// One iPhone's Live Activity listening to one broadcast channel: what ActivityKit does with
/// each push APNs delivers (apns.md §4, AK, DLD), so a test can ask what a fan sees instead of
/// what the server sent.
///
/// - An update is applied only when its `aps.timestamp` is newer than the last one applied;
///   an older or equal one is dropped silently (a repeat, or a late arrival).
/// - Once an `end` is applied, everything after it is dropped.
/// - The alert of an applied push is shown; the alert of a dropped one never is. So an alert
///   the server resends with the same timestamp (at least once) is still shown once.
/// - `content-state` is decoded into ``ContentState`` with a default `JSONDecoder`, as
///   ActivityKit does; a push whose state does not decode is dropped.
/// - An ended activity stays on the Lock Screen until its `dismissal-date` (one in the past
///   removes it at once), and at most 4 hours after the `end` arrived (the default without one).
/// - A broadcast cannot start an activity: an `event: start` is dropped.
///
/// The model is stricter than devices have been seen to be in one way: an `end` that is not
/// newer is dropped like an update (one forum report saw such an `end` applied), so the server
/// cannot lean on that leniency. Pure: arrival times are given, never read.
public struct Phone: Sendable {
    /// How long an ended activity stays without a `dismissal-date`, and at most with one.
    public static let longestDismissal: TimeInterval = 4 * 3600

    /// What the activity shows: the content-state of the last applied push.
    public private(set) var shown: ContentState?
    /// The `aps.timestamp` of the last applied push.
    public private(set) var lastTimestamp: Int?
    /// The `stale-date` of the last applied update (UNIX seconds), if it carried one.
    public private(set) var staleDate: Int?
    /// How the activity ended, once an `end` was applied.
    public private(set) var ending: Ending?
    /// Every alert shown, in the order shown.
    public private(set) var alerts: [ShownAlert] = []
    /// What happened to each push, in the order received.
    public private(set) var outcomes: [Outcome] = []

    /// An activity started (by the app or a push-to-start) with `state` at `timestamp`, or
    /// with nothing shown yet.
    public init(startedWith state: ContentState? = nil, timestamp: Int? = nil) {
        shown = state
        lastTimestamp = timestamp
    }

    /// How an activity ended.
    public struct Ending: Sendable, Hashable {
        /// When the `end` arrived.
        public var endedAt: Date
        /// When it leaves the Lock Screen.
        public var dismissedAt: Date

        /// An ending at `endedAt`, dismissed at `dismissedAt`.
        public init(endedAt: Date, dismissedAt: Date) {
            self.endedAt = endedAt
            self.dismissedAt = dismissedAt
        }
    }

    /// A shown alert.
    public struct ShownAlert: Sendable, Hashable {
        /// The title, if any.
        public var title: PushAlert.Text?
        /// The body, if any.
        public var body: PushAlert.Text?
        /// The `aps.timestamp` of the push that carried it.
        public var timestamp: Int
        /// When it arrived.
        public var arrivedAt: Date
    }

    /// What the phone did with one push.
    public enum Outcome: Sendable, Hashable {
        /// Shown (and its alert, if any).
        case applied(timestamp: Int)
        /// Dropped, and why.
        case dropped(Drop)
    }

    /// Why a push was dropped.
    public enum Drop: Sendable, Hashable {
        /// Its timestamp is not newer than the last applied one.
        case notNewer(timestamp: Int, last: Int)
        /// The activity had already ended.
        case afterEnd
        /// Its `content-state` does not decode into ``ContentState`` (the decoder's words).
        case undecodable(String)
        /// A broadcast cannot start an activity.
        case startOnBroadcast
        /// Not a Live Activity push at all (what is wrong with it).
        case malformed(String)
    }

    /// Receives `body` (the JSON APNs delivered) at `time`; returns what was done with it.
    @discardableResult
    public mutating func receive(_ body: [UInt8], at time: Date) -> Outcome {
        let outcome = apply(body, at: time)
        outcomes.append(outcome)
        return outcome
    }

    private mutating func apply(_ body: [UInt8], at time: Date) -> Outcome {
        guard ending == nil else { return .dropped(.afterEnd) }
        let push: Push
        do {
            push = try Push(body)
        } catch {
            return .dropped(error.drop)
        }
        if push.event == .start { return .dropped(.startOnBroadcast) }
        if let lastTimestamp, push.timestamp <= lastTimestamp {
            return .dropped(.notNewer(timestamp: push.timestamp, last: lastTimestamp))
        }
        shown = push.contentState
        lastTimestamp = push.timestamp
        staleDate = push.staleDate
        if let alert = push.alert {
            alerts.append(ShownAlert(title: alert.title, body: alert.body, timestamp: push.timestamp, arrivedAt: time))
        }
        if push.event == .end {
            let latest = time.addingTimeInterval(Self.longestDismissal)
            let asked = push.dismissalDate.map { Date(timeIntervalSince1970: TimeInterval($0)) } ?? latest
            ending = Ending(endedAt: time, dismissedAt: max(time, min(asked, latest)))
        }
        return .applied(timestamp: push.timestamp)
    }

    /// Whether the activity is on the Lock Screen at `time` (after the last push received).
    public func isShowing(at time: Date) -> Bool {
        guard shown != nil else { return false }
        guard let ending else { return true }
        return time < ending.dismissedAt
    }

    /// Whether a running activity shows its data as out of date at `time` (its stale date passed).
    public func isStale(at time: Date) -> Bool {
        guard ending == nil, let staleDate else { return false }
        return time.timeIntervalSince1970 >= TimeInterval(staleDate)
    }
}
