import Clocks
import Foundation

/// When each duty runs next: pure, driven by the times it is given.
///
/// A duty is due at once when the poller becomes leader, then every `interval` after its
/// previous run *started*. A run that overran its interval is not repeated to catch up: the next
/// one starts as soon as the loop sees it due.
package struct DutySchedule: Sendable, Equatable {
    private var intervals: [String: Duration]
    private var nextDue: [String: Date] = [:]

    /// Creates a schedule for duties named in `intervals`; every one is due at once.
    package init(intervals: [String: Duration]) {
        self.intervals = intervals
    }

    /// The duties due at `now`, in name order.
    package func due(at now: Date) -> [String] {
        intervals.keys.filter { name in nextDue[name].map { $0 <= now } ?? true }.sorted()
    }

    /// Records that `name` started a run at `startedAt`.
    package mutating func ran(_ name: String, startedAt: Date) {
        guard let interval = intervals[name] else { return }
        nextDue[name] = startedAt.adding(interval)
    }

    /// The earliest time any duty is due (`nil` when there is no duty).
    package var nextWake: Date? {
        guard !intervals.isEmpty else { return nil }
        if intervals.keys.contains(where: { nextDue[$0] == nil }) { return .distantPast }
        return nextDue.values.min()
    }

    /// Forgets every run: all duties are due again (after leadership was lost and regained, the
    /// new leader must not trust what another instance did meanwhile).
    package mutating func reset() {
        nextDue = [:]
    }
}
