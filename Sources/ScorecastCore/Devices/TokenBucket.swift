/// A token bucket: `capacity` requests at once, refilled at `ratePerSecond`. Pure: the caller
/// passes the time, so tests step a clock instead of sleeping.
///
/// ```swift
/// var bucket = TokenBucket(capacity: 10, ratePerSecond: 1, now: 0)
/// bucket.take(now: 0.5)   // .allowed
/// ```
public struct TokenBucket: Sendable, Hashable {
    /// What a request gets.
    public enum Decision: Sendable, Hashable {
        /// Go ahead: a token was taken.
        case allowed
        /// Refused: the next token is there after `retryAfter` seconds.
        case limited(retryAfter: Double)
    }

    /// The most tokens the bucket holds (the burst).
    public let capacity: Double
    /// Tokens added per second.
    public let ratePerSecond: Double
    /// Tokens in the bucket at `updatedAt`.
    public private(set) var tokens: Double
    /// When `tokens` was last brought up to date (seconds on the caller's clock).
    public private(set) var updatedAt: Double

    /// A full bucket at `now`.
    public init(capacity: Double, ratePerSecond: Double, now: Double) {
        self.capacity = max(1, capacity)
        self.ratePerSecond = max(0, ratePerSecond)
        self.tokens = self.capacity
        self.updatedAt = now
    }

    /// Takes `cost` tokens at `now` if there are that many.
    public mutating func take(now: Double, cost: Double = 1) -> Decision {
        refill(now: now)
        if tokens >= cost {
            tokens -= cost
            return .allowed
        }
        guard ratePerSecond > 0 else { return .limited(retryAfter: .infinity) }
        return .limited(retryAfter: (cost - tokens) / ratePerSecond)
    }

    /// Whether the bucket is full at `now` (a full bucket can be forgotten: a new one is the same).
    public func isFull(now: Double) -> Bool {
        tokens + max(0, now - updatedAt) * ratePerSecond >= capacity
    }

    private mutating func refill(now: Double) {
        // A clock that steps back never adds tokens.
        let elapsed = max(0, now - updatedAt)
        tokens = min(capacity, tokens + elapsed * ratePerSecond)
        updatedAt = max(updatedAt, now)
    }
}
