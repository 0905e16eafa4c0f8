import APNsCore
import Foundation
import ScorecastCore
import TestSupport
import Testing
@testable import DeliveryEngine

@Suite struct DeliveryDecisionTests {
    static let now = Date(timeIntervalSince1970: 1_000_000)
    static let policy = RetryPolicy(baseDelay: 1, maximumDelay: 60, minimumDelay: 0.05, maximumAttempts: 4, credentialPause: 300)

    static func decide(_ result: SendResult, attempt: Int = 1, renewed: Bool = false, word: UInt64 = .max) -> DeliveryDecision {
        var random = ConstantGenerator(value: word)
        return DeliveryDecision.decide(after: result, attempt: attempt, tokenWasRenewed: renewed, now: now, policy: policy, random: &random)
    }

    static func response(_ status: Int, _ reason: String? = nil, retryAfter: Double? = nil) -> SendResult {
        .response(status: status, reason: reason.map(APNsReason.init(rawValue:)), retryAfter: retryAfter)
    }

    @Test(arguments: [
        (response(200), 1, false, DeliveryDecision.done),
        (response(400, "ChannelNotRegistered"), 1, false, .channelGone),
        (response(410, "Unregistered"), 1, false, .deviceTokenGone),
        (response(400, "BadExpirationDate"), 1, false, .fail(reason: "400 BadExpirationDate", alert: false)),
        (response(413, "PayloadTooLarge"), 1, false, .fail(reason: "413 PayloadTooLarge", alert: false)),
        (response(404), 1, false, .fail(reason: "HTTP 404", alert: false)),
        (response(400, "FeatureNotEnabled"), 1, false, .gaveUp(at: now.addingTimeInterval(60), reason: "400 FeatureNotEnabled", alert: true)),
        (response(403, "InvalidProviderToken"), 1, false, .pauseApp(reason: "403 InvalidProviderToken", until: now.addingTimeInterval(300))),
        (response(403, "TopicMismatch"), 2, false, .pauseApp(reason: "403 TopicMismatch", until: now.addingTimeInterval(300))),
        (response(403, "ExpiredProviderToken"), 1, false, .renewTokenAndRetry),
        (response(403, "ExpiredProviderToken"), 2, true,
         .pauseApp(reason: "403 ExpiredProviderToken again with a freshly renewed token", until: now.addingTimeInterval(300))),
        (response(503, "ServiceUnavailable"), 1, false, .retry(at: now.addingTimeInterval(1), reason: "503 ServiceUnavailable")),
        (response(500), 3, false, .retry(at: now.addingTimeInterval(4), reason: "HTTP 500")),
        // 429: again after the attempt's backoff (at priority 5, no routine spacing); Retry-After
        // only bars priority 10, capped at 60 s.
        (response(429, "TooManyRequests", retryAfter: 20), 1, false,
         .throttled(at: now.addingTimeInterval(1), priorityTenAfter: now.addingTimeInterval(20), reason: "429 TooManyRequests")),
        (response(429, "TooManyRequests", retryAfter: 3600), 1, false,
         .throttled(at: now.addingTimeInterval(1), priorityTenAfter: now.addingTimeInterval(60), reason: "429 TooManyRequests")),
        (response(429, "TooManyRequests"), 4, false,
         .throttled(at: now.addingTimeInterval(8), priorityTenAfter: now, reason: "429 TooManyRequests")),
        (response(429, "TooManyProviderTokenUpdates"), 2, false, .retry(at: now.addingTimeInterval(2), reason: "429 TooManyProviderTokenUpdates")),
        (.transportFailure(.goAwayUnprocessed), 1, false, .retry(at: now.addingTimeInterval(1), reason: "GOAWAY before the request was processed")),
        // Giving up on an attempt keeps the state pending (alerted once, at the limit).
        (.transportFailure(.timeout), 4, false, .gaveUp(at: now.addingTimeInterval(60), reason: "gave up after 4 attempts, last: timeout", alert: true)),
        (response(503), 5, false, .gaveUp(at: now.addingTimeInterval(60), reason: "gave up after 5 attempts, last: HTTP 503", alert: false)),
    ] as [(SendResult, Int, Bool, DeliveryDecision)])
    func followsApnsMdSection8(result: SendResult, attempt: Int, renewed: Bool, expected: DeliveryDecision) {
        #expect(Self.decide(result, attempt: attempt, renewed: renewed) == expected)
    }

    @Test func jitterMovesTheRetryTimeWithinTheBound() {
        let low = Self.decide(Self.response(503), attempt: 3, word: .min)
        let high = Self.decide(Self.response(503), attempt: 3, word: .max)
        #expect(low == .retry(at: Self.now.addingTimeInterval(0.05), reason: "HTTP 503"))
        #expect(high == .retry(at: Self.now.addingTimeInterval(4), reason: "HTTP 503"))
    }

    @Test(arguments: [
        (response(200), APNsOutcomeClass.success, "HTTP 200"),
        (response(429, "TooManyRequests"), .throttled, "429 TooManyRequests"),
        (response(400, "Mystery"), .requestMalformed, "400 Mystery"),
        (.transportFailure(.connectionReset), .retryWithBackoff, "connection reset"),
    ] as [(SendResult, APNsOutcomeClass, String)])
    func resultsKnowTheirClassAndLabel(result: SendResult, outcome: APNsOutcomeClass, label: String) {
        #expect(result.outcomeClass == outcome)
        #expect(result.label == label)
    }
}
