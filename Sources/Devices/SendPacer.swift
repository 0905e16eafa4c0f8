import Clocks
import ScorecastCore
import Synchronization

/// Paces device pushes to a rate: a `TokenBucket` (one second of burst) on the service clock's
/// monotonic reading; callers wait for their token on the same clock.
final class SendPacer: Sendable {
    private let bucket: Mutex<TokenBucket>
    private let clock: any ServiceClock
    /// The bucket counts seconds from here (it keeps `Double` seconds, not instants).
    private let origin: ContinuousClock.Instant

    /// At most `perSecond` sends a second, timed by `clock`.
    init(perSecond: Int, clock: any ServiceClock) {
        self.clock = clock
        origin = clock.monotonicNow()
        bucket = Mutex(TokenBucket(capacity: Double(perSecond), ratePerSecond: Double(perSecond), now: 0))
    }

    /// Returns once a send may go, or once the task is cancelled (its sends then end as
    /// cancelled: waiting on would only spin, the clock's sleep returning at once).
    func wait() async {
        while !Task.isCancelled {
            let decision = bucket.withLock { $0.take(now: (clock.monotonicNow() - origin).timeInterval) }
            guard case .limited(let seconds) = decision else { return }
            await clock.sleep(for: .milliseconds(max(1, Int((seconds * 1000).rounded(.up)))))
        }
    }
}
