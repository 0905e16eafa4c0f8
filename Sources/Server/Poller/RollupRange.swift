import Clocks
import Foundation

/// Which minutes one statistics roll-up recomputes, and how far the roll-ups are final after
/// it. Pure.
///
/// A minute is *settled* once `settleDelay` has passed since it ended: a `deliveries` row is
/// stamped with its transaction's start, so a row may commit a little after its minute closed.
/// Settled minutes are read from the roll-up tables; later ones live from `deliveries`.
///
/// Each round recomputes from `lookback` before the previous settled point (catching any row
/// that committed late) through the current minute. A first round (no state) starts at the
/// oldest data; a long backlog is worked off in spans of at most `maxSpan`.
package struct RollupRange: Sendable, Equatable {
    /// First minute recomputed (inclusive).
    package var from: Date
    /// End of the recomputed range (exclusive, a minute boundary).
    package var to: Date
    /// Minutes before this are final after the round.
    package var settledBefore: Date

    /// Creates a range.
    package init(from: Date, to: Date, settledBefore: Date) {
        self.from = from
        self.to = to
        self.settledBefore = settledBefore
    }

    /// The range of the round at `now`.
    /// - Parameters:
    ///   - previous: the settled point left by the last round, if any.
    ///   - oldestData: the earliest delivery or event time there is (first round only).
    package static func plan(
        previous: Date?, oldestData: Date?, now: Date,
        settleDelay: TimeInterval = 60, lookback: TimeInterval = 120, maxSpan: TimeInterval = 6 * 3600
    ) -> RollupRange {
        let currentEnd = now.minuteStart.addingTimeInterval(60)
        let settledNow = now.addingTimeInterval(-settleDelay).minuteStart
        let from: Date
        if let previous {
            from = min(previous.addingTimeInterval(-lookback).minuteStart, currentEnd.addingTimeInterval(-60))
        } else if let oldestData {
            from = min(oldestData.minuteStart, settledNow)
        } else {
            from = settledNow
        }
        let to = min(currentEnd, from.addingTimeInterval(max(60, maxSpan)).minuteStart)
        let settled = max(previous ?? .distantPast, min(settledNow, to))
        return RollupRange(from: from, to: to, settledBefore: settled)
    }
}
