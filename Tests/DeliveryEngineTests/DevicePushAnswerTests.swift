import DeliveryEngine
import ScorecastCore
import TestSupport
import Testing

/// The one rule by which a push to a device (a token-path update or a push-to-start) ends:
/// sent, retried after the backoff while attempts are left, or failed, with its token pruned
/// when APNs called it dead.
@Suite struct DevicePushAnswerTests {
    private static let retry = RetryPolicy(baseDelay: 1, maximumDelay: 60, maximumAttempts: 3)

    private static func settle(_ verdict: DevicePushVerdict, attempt: Int = 1, retryAfter: Double? = nil) -> DevicePushAnswer {
        var random = SeededGenerator(seed: 7)
        return DevicePushAnswer.settle(verdict, attempt: attempt, retryAfter: retryAfter, retry: retry, using: &random)
    }

    @Test func eachVerdictEndsThePushByOneRule() {
        #expect(Self.settle(.delivered) == DevicePushAnswer(outcome: .sent, reason: ""))
        #expect(Self.settle(.pruneToken(reason: "Unregistered"))
            == DevicePushAnswer(outcome: .failed, reason: "Unregistered", prunedReason: "Unregistered"))
        #expect(Self.settle(.fail(reason: "BadTopic")) == DevicePushAnswer(outcome: .failed, reason: "BadTopic"))
        #expect(Self.settle(.retry(reason: "TooManyRequests"), attempt: 3) == DevicePushAnswer(outcome: .failed, reason: "TooManyRequests"))
    }

    @Test func aRetryWaitsThePolicysBackoffAndAtLeastRetryAfter() throws {
        var random = SeededGenerator(seed: 7)
        let expected = Self.retry.delay(afterAttempt: 2, retryAfter: nil, using: &random)
        let retried = Self.settle(.retry(reason: "InternalServerError"), attempt: 2)
        #expect(retried.outcome == .retried && retried.reason == "InternalServerError" && retried.prunedReason == nil)
        #expect(retried.retryDelay == expected)
        let throttled = Self.settle(.retry(reason: "TooManyRequests"), attempt: 1, retryAfter: 45)
        #expect(try #require(throttled.retryDelay) >= 45)
    }
}
