import Clocks
import ScorecastCore
import Synchronization

/// Token buckets per key (a device, an address), shared by the HTTP threads.
///
/// The decision is `TokenBucket`'s (pure); this type only keeps one bucket per key and reads
/// the service clock's monotonic reading. Buckets that have refilled are forgotten when the map
/// grows, so memory stays bounded by the keys active within one refill period.
package final class RequestRateLimiter: Sendable {
    /// Requests at once per key.
    package let burst: Int
    /// Requests per minute per key, sustained.
    package let perMinute: Int
    private let clock: any ServiceClock
    /// The buckets count seconds from here (they keep `Double` seconds, not instants).
    private let origin: ContinuousClock.Instant
    private let buckets = Mutex<[String: TokenBucket]>([:])
    private static let sweepThreshold = 10_000

    /// A limiter allowing `perMinute` requests a minute per key, `burst` at once, timed by `clock`.
    package init(perMinute: Int, burst: Int, clock: any ServiceClock) {
        self.perMinute = perMinute
        self.burst = burst
        self.clock = clock
        origin = clock.monotonicNow()
    }

    /// Takes a token for `key`.
    package func take(_ key: String) -> TokenBucket.Decision {
        let now = (clock.monotonicNow() - origin).timeInterval
        return buckets.withLock { buckets in
            if buckets.count >= Self.sweepThreshold {
                buckets = buckets.filter { !$0.value.isFull(now: now) }
            }
            var bucket = buckets[key] ?? TokenBucket(capacity: Double(burst), ratePerSecond: Double(perMinute) / 60, now: now)
            let decision = bucket.take(now: now)
            buckets[key] = bucket
            return decision
        }
    }
}
