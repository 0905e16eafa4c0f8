import ScorecastCore

/// What APNs' verdict on one push to a device decides, whatever the push carried (a Live
/// Activity update on the token path, or a push-to-start): whether it counts as sent, goes
/// again after a backoff, or fails for good, and whether its token is dead. The token path's
/// settlement (``ActivityUpdateSettlement``) and the push-to-start's completion both start
/// from it, so a device push is retried by one rule.
///
/// | verdict | attempts left | outcome | retried after |
/// |---|---|---|---|
/// | delivered | — | sent | — |
/// | token dead | — | failed, the token pruned | — |
/// | refused for good | — | failed | — |
/// | retryable | yes | retried | the policy's backoff, at least `Retry-After` |
/// | retryable | no | failed | — |
public struct DevicePushAnswer: Sendable, Hashable {
    /// How the push ended, as counted (the outcome label of the device metrics).
    public enum Outcome: String, Sendable, Hashable {
        /// APNs accepted it.
        case sent
        /// It will be sent again.
        case retried
        /// It will not be sent again.
        case failed
    }

    /// How the push ended.
    public var outcome: Outcome
    /// APNs' word for a push not accepted (empty when sent).
    public var reason: String
    /// Why the token is dead, when APNs said so.
    public var prunedReason: String?
    /// Seconds until the next attempt, when retried.
    public var retryDelay: Double?

    /// An answer.
    public init(outcome: Outcome, reason: String, prunedReason: String? = nil, retryDelay: Double? = nil) {
        self.outcome = outcome
        self.reason = reason
        self.prunedReason = prunedReason
        self.retryDelay = retryDelay
    }

    /// Decides what `verdict`, the answer to attempt number `attempt`, does; a retry waits as
    /// `retry` says (at least `retryAfter` seconds when APNs sent one), its jitter drawn from
    /// `random`.
    public static func settle(
        _ verdict: DevicePushVerdict, attempt: Int, retryAfter: Double?, retry: RetryPolicy, using random: inout some RandomNumberGenerator
    ) -> DevicePushAnswer {
        switch verdict {
        case .delivered:
            return DevicePushAnswer(outcome: .sent, reason: "")
        case .pruneToken(let reason):
            return DevicePushAnswer(outcome: .failed, reason: reason, prunedReason: reason)
        case .fail(let reason):
            return DevicePushAnswer(outcome: .failed, reason: reason)
        case .retry(let reason):
            guard retry.allowsRetry(afterAttempt: attempt) else { return DevicePushAnswer(outcome: .failed, reason: reason) }
            return DevicePushAnswer(
                outcome: .retried, reason: reason, retryDelay: retry.delay(afterAttempt: attempt, retryAfter: retryAfter, using: &random))
        }
    }
}
