import Foundation

/// Spacing of routine updates per channel: a routine update is sent at most once per
/// ``routineInterval`` after the channel's previous send; alerting ones go at once. Together
/// with coalescing this turns a burst of clock ticks into one send carrying the newest state.
public struct ShapingPolicy: Sendable, Hashable {
    /// Seconds between routine sends to one channel. Default 10.
    public var routineInterval: Double

    /// Creates a policy; a negative interval counts as 0.
    public init(routineInterval: Double = 10) {
        self.routineInterval = max(0, routineInterval)
    }

    /// When an update may be sent: `now` if alerting or if the channel has not sent for a full
    /// interval, else the channel's last send + the interval.
    public func dueAt(isAlerting: Bool, now: Date, lastSentAt: Date?) -> Date {
        guard !isAlerting, let lastSentAt else { return now }
        return max(now, lastSentAt.addingTimeInterval(routineInterval))
    }
}
