import Clocks
import Foundation

/// The time span and bucketing of a statistics request, from its window and the time. Pure.
///
/// The span ends at the end of the bucket holding `now` (so the newest bucket is the one in
/// progress) and starts one window earlier, on a bucket boundary. Buckets are a minute wide for
/// windows up to 6 hours, 5 minutes up to a day, an hour beyond: at most a few hundred points.
package struct StatsSpan: Sendable, Equatable {
    /// Start (inclusive).
    package var from: Date
    /// End (exclusive).
    package var to: Date
    /// Bucket width in seconds.
    package var bucketSeconds: Int

    /// Creates a span.
    package init(from: Date, to: Date, bucketSeconds: Int) {
        self.from = from
        self.to = to
        self.bucketSeconds = bucketSeconds
    }

    /// The span of `window` at `now`.
    package init(window: StatsWindow, now: Date) {
        let seconds = window.seconds
        let bucket = seconds <= 6 * 3600 ? 60 : seconds <= 86_400 ? 300 : 3600
        let end = now.flooring(toMultipleOf: Double(bucket)).addingTimeInterval(Double(bucket))
        self.init(
            from: end.addingTimeInterval(-Double(seconds)).flooring(toMultipleOf: Double(bucket)),
            to: end, bucketSeconds: bucket)
    }

    /// Every bucket start, oldest first.
    package var bucketStarts: [Date] {
        stride(from: from.timeIntervalSince1970, to: to.timeIntervalSince1970, by: Double(bucketSeconds))
            .map { Date(timeIntervalSince1970: $0) }
    }

    /// The start of the bucket holding `date`.
    package func bucket(of date: Date) -> Date {
        date.flooring(toMultipleOf: Double(bucketSeconds))
    }
}
