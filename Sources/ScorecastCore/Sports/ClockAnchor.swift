import Foundation
import ScorecastActivity

/// The game clock as the server keeps it: a reading at an instant, running or not. A clock
/// report that agrees with the running clock (within the sport's tolerance) keeps the anchor, so
/// a clock tick changes nothing the phone shows.
public struct ClockAnchor: Sendable, Hashable {
    /// Whether the clock runs from ``at``.
    public var running: Bool
    /// The reading in seconds at ``at``.
    public var seconds: Double
    /// The instant of the reading.
    public var at: Date

    /// Creates an anchor.
    public init(running: Bool, seconds: Double, at: Date) {
        self.running = running
        self.seconds = seconds
        self.at = at
    }

    /// The reading at `date`, running in `direction`; a count-down clock stops at 0.
    public func reading(at date: Date, direction: ContentState.Clock.Direction) -> Double {
        guard running else { return seconds }
        let passed = max(0, date.timeIntervalSince(at))
        return direction == .up ? seconds + passed : max(0, seconds - passed)
    }

    /// The anchor after a report at `time`: `reported` seconds (when the feed gave a reading)
    /// with the clock `running` or not. The current anchor stays when the report agrees with it
    /// within `tolerance` seconds; otherwise the clock is re-anchored at `time`.
    public static func next(
        after current: ClockAnchor?, reported: Double?, running: Bool, time: Date,
        direction: ContentState.Clock.Direction, tolerance: Double
    ) -> ClockAnchor? {
        guard let reported else {
            guard let current, current.running != running else { return current }
            return ClockAnchor(running: running, seconds: current.reading(at: time, direction: direction), at: time)
        }
        if let current, current.running == running,
            abs(current.reading(at: time, direction: direction) - reported) <= tolerance {
            return current
        }
        return ClockAnchor(running: running, seconds: reported, at: time)
    }
}
