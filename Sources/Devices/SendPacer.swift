import ScorecastCore
import Synchronization

/// Paces device pushes to a rate: a `TokenBucket` (one second of burst) on the monotonic
/// clock; callers wait for their token.
final class SendPacer: Sendable {
    private let bucket: Mutex<TokenBucket>
    private let clock: @Sendable () -> Double

    /// At most `perSecond` sends a second.
    init(perSecond: Int, clock: @escaping @Sendable () -> Double = RequestRateLimiter.monotonicSeconds) {
        self.clock = clock
        bucket = Mutex(TokenBucket(capacity: Double(perSecond), ratePerSecond: Double(perSecond), now: clock()))
    }

    /// Returns once a send may go.
    func wait() async {
        while true {
            let decision = bucket.withLock { $0.take(now: clock()) }
            guard case .limited(let seconds) = decision else { return }
            try? await Task.sleep(for: .milliseconds(max(1, Int((seconds * 1000).rounded(.up)))))
        }
    }
}
