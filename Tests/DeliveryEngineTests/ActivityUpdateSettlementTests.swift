import Foundation
import ScorecastCore
import TestSupport
import Testing
@testable import DeliveryEngine

/// What an answer to a token-path update does, without Postgres.
@Suite struct ActivityUpdateSettlementTests {
    static let now = Date(timeIntervalSince1970: 1_795_993_200)
    static let due = now.addingTimeInterval(-2)
    static let retry = RetryPolicy(baseDelay: 0.5, maximumDelay: 60, maximumAttempts: 3)
    /// The row as claimed: version 4, its second attempt.
    static let claimed = ActivityUpdateSettlement.Row(version: 4, dueAt: due, attempts: 2)
    /// The row after a newer update merged into it during the send.
    static let changed = ActivityUpdateSettlement.Row(version: 5, dueAt: due, attempts: 2)

    static func settle(_ verdict: DevicePushVerdict, attempt: Int = 2, retryAfter: Double? = nil, immediate: Bool = false, downgraded: Bool = false)
        -> ActivityUpdateSettlement.Settlement
    {
        // The lowest draw: full jitter gives the policy's minimum wait (0.05 s).
        var random = ConstantGenerator(value: 0)
        let answer = ActivityUpdateSettlement.Answer(
            claimedVersion: 4, attempt: attempt, timestamp: 1_795_993_100, verdict: verdict, retryAfter: retryAfter, immediate: immediate,
            downgraded: downgraded)
        return ActivityUpdateSettlement.settle(answer, now: now, retry: retry, using: &random)
    }

    @Test func aDeliveredUpdateIsShownSpendsTheBudgetAtPriorityTenAndLeaves() {
        let settlement = Self.settle(.delivered, immediate: true)
        #expect(settlement.outcome == .sent)
        #expect(settlement.reason == "")
        #expect(settlement.shownTimestamp == 1_795_993_100)
        #expect(settlement.budgetSpentAt == Self.now)
        #expect(!settlement.downgraded)
        #expect(settlement.prunedReason == nil)
        #expect(settlement.write(on: Self.claimed) == .delete)
    }

    @Test func aDowngradedDeliveryIsCountedAndSpendsNoBudget() {
        let settlement = Self.settle(.delivered, downgraded: true)
        #expect(settlement.downgraded)
        #expect(settlement.budgetSpentAt == nil)
        #expect(settlement.write(on: Self.claimed) == .delete)
    }

    @Test func aNewerUpdateThatArrivedDuringTheSendStaysDueWithFreshAttempts() {
        #expect(Self.settle(.delivered, immediate: true).write(on: Self.changed) == .release(dueAt: Self.due, attempts: 0, lastError: nil))
        #expect(Self.settle(.fail(reason: "BadTopic")).write(on: Self.changed) == .release(dueAt: Self.due, attempts: 0, lastError: "BadTopic"))
        #expect(Self.settle(.retry(reason: "TooManyRequests"), retryAfter: 30).write(on: Self.changed)
            == .release(dueAt: Self.due, attempts: 0, lastError: "TooManyRequests"), "the older one's backoff never holds back the newer")
        #expect(Self.settle(.retry(reason: "InternalServerError"), attempt: 3).write(on: Self.changed)
            == .release(dueAt: Self.due, attempts: 0, lastError: "InternalServerError"))
    }

    @Test func aDeadTokenIsPrunedAndItsRowDeletedWhateverItsVersion() {
        let settlement = Self.settle(.pruneToken(reason: "Unregistered"))
        #expect(settlement.outcome == .failed)
        #expect(settlement.prunedReason == "Unregistered")
        #expect(settlement.shownTimestamp == nil && settlement.budgetSpentAt == nil)
        #expect(settlement.write(on: Self.claimed) == .delete)
        #expect(settlement.write(on: Self.changed) == .delete)
    }

    @Test func anUpdateRefusedForGoodIsDeleted() {
        let settlement = Self.settle(.fail(reason: "BadTopic"))
        #expect(settlement.outcome == .failed)
        #expect(settlement.reason == "BadTopic")
        #expect(settlement.retryAt == nil)
        #expect(settlement.write(on: Self.claimed) == .delete)
    }

    @Test func aRetryBacksOffFromNowKeepsItsAttemptsAndHonoursRetryAfter() {
        let backoff = Self.settle(.retry(reason: "InternalServerError"))
        #expect(backoff.outcome == .retried)
        #expect(backoff.retryAt == Self.now.addingTimeInterval(0.05))
        #expect(backoff.write(on: Self.claimed) == .release(dueAt: Self.now.addingTimeInterval(0.05), attempts: 2, lastError: "InternalServerError"))
        let throttled = Self.settle(.retry(reason: "TooManyRequests"), retryAfter: 30)
        #expect(throttled.write(on: Self.claimed) == .release(dueAt: Self.now.addingTimeInterval(30), attempts: 2, lastError: "TooManyRequests"))
    }

    @Test func aRetryWithItsAttemptsSpentFailsAndLeaves() {
        let settlement = Self.settle(.retry(reason: "InternalServerError"), attempt: 3)
        #expect(settlement.outcome == .failed)
        #expect(settlement.reason == "InternalServerError")
        #expect(settlement.retryAt == nil)
        #expect(settlement.write(on: Self.claimed) == .delete)
    }
}
