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

    /// A newer state replaced the row during a goal's send: only a send that will be retried
    /// gives its alert back, onto the newer state (when that has none of its own).
    @Test func onlyARetriedSendsAlertRidesOnTheStateThatReplacedIt() throws {
        let goal = try ActivityUpdateMergeTests.pending(1, .score, home: 1)
        // Merged while the goal was in flight: the newer state, marked alerting, without the alert.
        let replacing = ActivityUpdateMerge.merge(
            pending: goal, inFlight: true, update: try ActivityUpdateMergeTests.pending(2, .clock, home: 1, dueIn: 10))
        #expect(replacing.payload.alert == nil && replacing.alerting)

        let carried = try #require(Self.settle(.retry(reason: "InternalServerError")).update(replacing: replacing, sent: goal))
        var expected = replacing.payload
        expected.alert = goal.payload.alert
        #expect(carried.payload == expected)
        #expect(carried.priority == .immediate && carried.alerting)
        #expect(carried.dueAt == ActivityUpdateMergeTests.now)

        #expect(Self.settle(.delivered).update(replacing: replacing, sent: goal) == nil)
        #expect(Self.settle(.fail(reason: "PayloadTooLarge")).update(replacing: replacing, sent: goal) == nil)
        #expect(Self.settle(.pruneToken(reason: "Unregistered")).update(replacing: replacing, sent: goal) == nil)
        #expect(Self.settle(.retry(reason: "InternalServerError"), attempt: 3).update(replacing: replacing, sent: goal) == nil,
                "attempts spent")
        let secondGoal = try ActivityUpdateMergeTests.pending(2, .score, home: 2)
        #expect(Self.settle(.retry(reason: "InternalServerError")).update(replacing: secondGoal, sent: goal) == nil,
                "a newer alert keeps its own: the row stays as it is")
    }
}
