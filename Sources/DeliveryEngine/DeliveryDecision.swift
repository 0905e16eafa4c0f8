import Foundation

/// What the worker does after one send: the outcome handling of apns.md §8 as a pure function.
public enum DeliveryDecision: Sendable, Hashable {
    /// Accepted: delete the outbox row, record the delivery.
    case done
    /// Send again at `at` (the row stays, with its attempts counted and backoff set); `reason`
    /// is recorded.
    case retry(at: Date, reason: String)
    /// `429 TooManyRequests`: the channel's priority-10 budget is spent. The caller shrinks it
    /// (``ChannelBudget/throttled(now:barredUntil:policy:)``), sends no priority 10 before
    /// `priorityTenAfter` (`Retry-After`, capped by ``RetryPolicy/maximumRetryAfter``), and
    /// sends again at `at` — at priority 5, after the attempt's ordinary backoff rather than a
    /// routine update's spacing: a throttled goal is still a goal, and priority 5 spends no budget.
    case throttled(at: Date, priorityTenAfter: Date, reason: String)
    /// Renew the app's provider token and send again at once (once per delivery).
    case renewTokenAndRetry
    /// End this state with `reason` recorded: the request can never succeed (APNs refused the
    /// payload). `alert` asks for a loud log line rather than a counter.
    case fail(reason: String, alert: Bool)
    /// This attempt's retries are spent (or APNs refuses the app's configuration): the attempt
    /// is recorded as failed (loudly when `alert`), but the channel's newest state stays
    /// pending and is sent again at `at` — or as soon as the host's circuit breaker closes.
    /// Nothing APNs does while it is down drops a state.
    case gaveUp(at: Date, reason: String, alert: Bool)
    /// APNs says the channel does not exist: mark it `gone`, cancel its pending work, alert.
    case channelGone
    /// A device token is dead: forget it (push-to-start only).
    case deviceTokenGone
    /// The app's credentials are broken: pause all its sends until `until`, log loudly once.
    /// The row stays, to go out when the app resumes.
    case pauseApp(reason: String, until: Date)

    /// Decides what follows `result`.
    ///
    /// - Parameters:
    ///   - attempt: the 1-based number of the attempt that produced `result`.
    ///   - tokenWasRenewed: whether this attempt already used a token renewed for this delivery
    ///     (a second `ExpiredProviderToken` then means the clock or key is broken).
    ///   - random: the jitter source.
    public static func decide(
        after result: SendResult,
        attempt: Int,
        tokenWasRenewed: Bool,
        now: Date,
        policy: RetryPolicy,
        random: inout some RandomNumberGenerator
    ) -> DeliveryDecision {
        let label = result.label
        switch result.outcomeClass {
        case .success:
            return .done
        case .channelGone:
            return .channelGone
        case .deviceTokenGone:
            return .deviceTokenGone
        case .requestMalformed:
            return .fail(reason: label, alert: false)
        case .configuration:
            return .gaveUp(at: now.addingTimeInterval(policy.maximumDelay), reason: label, alert: true)
        case .credentialsBroken:
            return .pauseApp(reason: label, until: now.addingTimeInterval(policy.credentialPause))
        case .renewTokenAndRetry:
            if tokenWasRenewed {
                return .pauseApp(reason: "\(label) again with a freshly renewed token", until: now.addingTimeInterval(policy.credentialPause))
            }
            return .renewTokenAndRetry
        case .throttled:
            var retryAfter = 0.0
            if case .response(_, _, let seconds?) = result, seconds.isFinite, seconds > 0 { retryAfter = seconds }
            let wait = policy.delay(afterAttempt: attempt, retryAfter: nil, using: &random)
            return .throttled(
                at: now.addingTimeInterval(wait), priorityTenAfter: now.addingTimeInterval(min(retryAfter, policy.maximumRetryAfter)),
                reason: label)
        case .retryWithBackoff, .keepTokenAndRetry:
            var retryAfter: Double?
            if case .response(_, _, let seconds) = result { retryAfter = seconds }
            guard policy.allowsRetry(afterAttempt: attempt) else {
                // Given up: the state waits the longest backoff (not the next jittered one), so
                // an outage is not hammered by spent retries; the breaker's close releases it.
                return .gaveUp(
                    at: now.addingTimeInterval(policy.maximumDelay), reason: "gave up after \(attempt) attempts, last: \(label)",
                    alert: attempt == policy.maximumAttempts)
            }
            let wait = policy.delay(afterAttempt: attempt, retryAfter: retryAfter, using: &random)
            return .retry(at: now.addingTimeInterval(wait), reason: label)
        }
    }
}
