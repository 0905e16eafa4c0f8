import Clocks
import Foundation

/// Which games the ensure duty may try again, so that a game whose channel cannot be created
/// (limit reached, APNs refusing) is not retried every round. Pure state: after the n-th
/// failure in a row a game waits `base × 2^(n-1)`, at most `maximum`; a success forgets it.
package struct EnsureBackoff: Sendable, Equatable {
    /// The wait after the first failure.
    package var base: Duration
    /// The longest wait.
    package var maximum: Duration
    private var failures: [String: (count: Int, retryAt: Date)] = [:]

    /// Creates an empty backoff.
    package init(base: Duration = .seconds(60), maximum: Duration = .seconds(1_800)) {
        self.base = base
        self.maximum = maximum
    }

    /// Whether `gameID` may be tried at `now`.
    package func mayTry(_ gameID: String, at now: Date) -> Bool {
        failures[gameID].map { now >= $0.retryAt } ?? true
    }

    /// When `gameID` may be tried next, if it is waiting.
    package func retryAt(_ gameID: String) -> Date? { failures[gameID]?.retryAt }

    /// Records a failed attempt at `now`.
    package mutating func failed(_ gameID: String, at now: Date) {
        let count = (failures[gameID]?.count ?? 0) + 1
        let factor = Double(1 << min(count - 1, 20))
        let wait = min(base.timeInterval * factor, maximum.timeInterval)
        failures[gameID] = (count, now.addingTimeInterval(wait))
    }

    /// Records a success: the game is forgotten.
    package mutating func succeeded(_ gameID: String) {
        failures[gameID] = nil
    }

    /// Forgets games no longer waiting for a channel (finished, or served meanwhile).
    package mutating func keepOnly(_ gameIDs: Set<String>) {
        failures = failures.filter { gameIDs.contains($0.key) }
    }

    /// Equal when the settings and every waiting game's failure count and retry time are.
    package static func == (lhs: EnsureBackoff, rhs: EnsureBackoff) -> Bool {
        lhs.base == rhs.base && lhs.maximum == rhs.maximum
            && lhs.failures.mapValues(\.count) == rhs.failures.mapValues(\.count)
            && lhs.failures.mapValues(\.retryAt) == rhs.failures.mapValues(\.retryAt)
    }
}
