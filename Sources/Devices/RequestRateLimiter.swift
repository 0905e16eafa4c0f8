import ScorecastCore
import Synchronization

/// Token buckets per key (a device, an address), shared by the HTTP threads.
///
/// The decision is `TokenBucket`'s (pure); this type only keeps one bucket per key and reads
/// the injected clock. Buckets that have refilled are forgotten when the map grows, so memory
/// stays bounded by the keys active within one refill period.
package final class RequestRateLimiter: Sendable {
    /// Requests at once per key.
    package let burst: Int
    /// Requests per minute per key, sustained.
    package let perMinute: Int
    private let clock: @Sendable () -> Double
    private let buckets = Mutex<[String: TokenBucket]>([:])
    private static let sweepThreshold = 10_000

    /// A limiter allowing `perMinute` requests a minute per key, `burst` at once; `clock` gives
    /// seconds (monotonic by default).
    package init(perMinute: Int, burst: Int, clock: @escaping @Sendable () -> Double = RequestRateLimiter.monotonicSeconds) {
        self.perMinute = perMinute
        self.burst = burst
        self.clock = clock
    }

    /// Takes a token for `key`.
    package func take(_ key: String) -> TokenBucket.Decision {
        let now = clock()
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

    /// Seconds on the monotonic clock since the process first asked.
    package static let monotonicSeconds: @Sendable () -> Double = {
        let elapsed = ContinuousClock.now - origin
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }

    private static let origin = ContinuousClock.now
}
