/// The `aps.event` of a Live Activity push (apns.md §4, §7).
public enum LiveActivityEvent: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// Push-to-start to a device token only; never a broadcast.
    case start
    /// New content for a running activity.
    case update
    /// Ends the activity, optionally with a `dismissal-date`.
    case end

    /// The text shown in logs and error messages.
    public var description: String { rawValue }
}
