/// Exponential backoff with full jitter (a uniformly random wait between 0 and the exponential
/// bound), capped, with a limit on attempts and respect for `Retry-After`.
///
/// The random source is injected, so tests use a seeded generator and production the system one.
public struct RetryPolicy: Sendable, Hashable {
    /// The bound for the first retry, in seconds. Default 0.5.
    public var baseDelay: Double
    /// The largest bound, in seconds. Default 300.
    public var maximumDelay: Double
    /// The smallest wait, in seconds, so a retry never spins. Default 0.05.
    public var minimumDelay: Double
    /// Attempts in all (the first send included) before the delivery fails. Default 12.
    public var maximumAttempts: Int
    /// The longest `Retry-After` honoured, in seconds; longer values are cut to it. Default 60
    /// (`SCORECAST_RETRY_AFTER_MAX_SECONDS`): one answer must never freeze a channel for an hour.
    public var maximumRetryAfter: Double
    /// How long an app's sends pause after a credential error, in seconds. Default 300.
    public var credentialPause: Double

    /// Creates a policy.
    public init(
        baseDelay: Double = 0.5,
        maximumDelay: Double = 300,
        minimumDelay: Double = 0.05,
        maximumAttempts: Int = 12,
        maximumRetryAfter: Double = 60,
        credentialPause: Double = 300
    ) {
        self.baseDelay = max(0, baseDelay)
        self.maximumDelay = max(0, maximumDelay)
        self.minimumDelay = max(0, minimumDelay)
        self.maximumAttempts = max(1, maximumAttempts)
        self.maximumRetryAfter = max(0, maximumRetryAfter)
        self.credentialPause = max(0, credentialPause)
    }

    /// The exponential bound after attempt number `attempt` (1-based): base × 2^(attempt−1), capped.
    public func bound(afterAttempt attempt: Int) -> Double {
        let exponent = Double(min(max(attempt, 1) - 1, 62))
        return min(maximumDelay, baseDelay * Double.pow2(exponent))
    }

    /// Seconds to wait after attempt number `attempt` failed: uniform in [0, bound) from one
    /// draw of `random`, at least
    /// ``minimumDelay``, and at least `Retry-After` (cut to ``maximumRetryAfter``) when the server
    /// sent one.
    public func delay(afterAttempt attempt: Int, retryAfter: Double?, using random: inout some RandomNumberGenerator) -> Double {
        let upper = bound(afterAttempt: attempt)
        // One draw, no rejection loop: the top 53 bits as a fraction in [0, 1).
        let fraction = Double(random.next() >> 11) / 9_007_199_254_740_992
        let jittered = upper * fraction
        var wait = max(minimumDelay, jittered)
        if let retryAfter, retryAfter.isFinite, retryAfter > 0 {
            wait = max(wait, min(retryAfter, maximumRetryAfter))
        }
        return wait
    }

    /// Whether another attempt is allowed after attempt number `attempt`.
    public func allowsRetry(afterAttempt attempt: Int) -> Bool {
        attempt < maximumAttempts
    }
}

extension Double {
    /// 2^exponent for a whole, non-negative exponent.
    fileprivate static func pow2(_ exponent: Double) -> Double {
        Double(sign: .plus, exponent: Int(exponent), significand: 1)
    }
}
