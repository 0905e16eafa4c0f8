import Foundation

extension ContentState {
    /// The game clock as an anchor the phone runs itself: a reading (``seconds``) at an instant
    /// (``periodStartedAt`` while running, ``stoppedAt`` while stopped), and a direction. The
    /// server sends no update for a clock tick; the Live Activity shows the running clock with
    /// `Text(timerInterval: clock.timerInterval!, countsDown: clock.countsDown)`.
    ///
    /// Football: `{"direction": "up", "running": true, "seconds": 2700, "periodStartedAt": …}`
    /// is the second half, kicked off at `periodStartedAt` with the clock at 45:00.
    /// Basketball: `{"direction": "down", "running": false, "seconds": 254, "stoppedAt": …}` is a
    /// stopped clock showing 4:14 left in the quarter.
    public struct Clock: Codable, Hashable, Sendable {
        /// Which way the clock runs.
        public enum Direction: String, Codable, Hashable, Sendable, CaseIterable {
            /// Counts elapsed time (football, rugby).
            case up
            /// Counts the time left in the period (basketball, ice hockey, American football).
            case down
        }

        /// The feed's own clock text at ``ContentState/updatedAt`` ("67'", "45+2'", "04:12"),
        /// for apps that show text instead of a running clock.
        public var label: String?
        /// Whether the clock is running: the phone advances it from ``periodStartedAt``.
        public var running: Bool
        /// Which way it runs.
        public var direction: Direction
        /// The clock's reading in seconds at ``periodStartedAt`` (running) or ``stoppedAt``
        /// (stopped): elapsed time counting up, time left counting down. Absent when the feed
        /// gives only a label.
        public var seconds: Double?
        /// While running: when the clock last started from ``seconds`` — the kick-off of the
        /// period in football, the restart after a stoppage in count-down sports.
        public var periodStartedAt: Date?
        /// While stopped: when it stopped (at ``seconds``).
        public var stoppedAt: Date?
        /// The regulation length of the period in seconds (45 minutes, a 12-minute quarter),
        /// for progress bars; absent when unknown.
        public var periodLength: Double?
        /// Announced added (stoppage) time in minutes, once announced ("+4" is 4).
        public var addedMinutes: Int?

        /// Creates a clock.
        public init(
            label: String? = nil, running: Bool, direction: Direction, seconds: Double? = nil,
            periodStartedAt: Date? = nil, stoppedAt: Date? = nil, periodLength: Double? = nil,
            addedMinutes: Int? = nil
        ) {
            self.label = label
            self.running = running
            self.direction = direction
            self.seconds = seconds
            self.periodStartedAt = periodStartedAt
            self.stoppedAt = stoppedAt
            self.periodLength = periodLength
            self.addedMinutes = addedMinutes
        }

        /// Whether a timer view should count down.
        public var countsDown: Bool { direction == .down }

        /// The reading at `date`: advanced from the anchor while running, frozen while stopped;
        /// a count-down clock stops at 0. `nil` without ``seconds``.
        public func reading(at date: Date) -> Double? {
            guard let seconds else { return nil }
            guard running, let periodStartedAt else { return seconds }
            let passed = max(0, date.timeIntervalSince(periodStartedAt))
            return direction == .up ? seconds + passed : max(0, seconds - passed)
        }

        /// The range to give `Text(timerInterval:countsDown:)` (or `ProgressView(timerInterval:)`)
        /// while the clock runs, `nil` while stopped or without an anchor. Counting up, the
        /// timer shows the time since the lower bound (the instant the clock read 0:00);
        /// counting down, the time left until the upper bound (the instant it reaches 0:00).
        public var timerInterval: ClosedRange<Date>? {
            guard running, let seconds, let periodStartedAt else { return nil }
            switch direction {
            case .up:
                let zero = periodStartedAt.addingTimeInterval(-seconds)
                let end = periodStartedAt.addingTimeInterval((periodLength ?? 0) + 4 * 3600)
                return zero...end
            case .down:
                let end = periodStartedAt.addingTimeInterval(seconds)
                let start = periodStartedAt.addingTimeInterval(-max(0, (periodLength ?? seconds) - seconds))
                return start...end
            }
        }
    }
}
