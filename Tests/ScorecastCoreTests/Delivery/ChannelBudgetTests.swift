import Foundation
import Testing
@testable import ScorecastCore

@Suite struct ChannelBudgetTests {
    /// 2025-11-29T21:00:00Z, the start of an hour window.
    static let hour = Date(timeIntervalSince1970: 1_764_450_000)
    static let policy = BudgetPolicy(profile: BudgetProfile(name: "test", immediatePerHour: 3))

    @Test func windowsAlignToTheHour() {
        #expect(ChannelBudget.windowStart(containing: Self.hour.addingTimeInterval(3599), policy: Self.policy) == Self.hour)
        #expect(ChannelBudget.windowStart(containing: Self.hour.addingTimeInterval(3600), policy: Self.policy) == Self.hour.addingTimeInterval(3600))
    }

    /// Sends wanted at 10, one per row: (seconds into the first hour, expected priority, downgraded).
    @Test func spendsTheBudgetThenDowngradesThenRenewsNextHour() {
        var budget = ChannelBudget.fresh(now: Self.hour, policy: Self.policy)
        let rows: [(Double, BroadcastPriority, Bool, Int)] = [
            (10, .immediate, false, 2), (20, .immediate, false, 1), (30, .immediate, false, 0),
            (40, .opportunistic, true, 0), (3599, .opportunistic, true, 0),
            (3600, .immediate, false, 2), (3700, .immediate, false, 1),
        ]
        for (offset, priority, downgraded, remaining) in rows {
            let now = Self.hour.addingTimeInterval(offset)
            let decision = budget.decide(wanting: .immediate, now: now, policy: Self.policy)
            #expect(decision == BudgetDecision(priority: priority, downgraded: downgraded, remaining: remaining), "at +\(offset)s")
            budget.recordSent(priority: decision.priority, downgraded: decision.downgraded, now: now, policy: Self.policy)
        }
        #expect(budget.immediateSent == 2)
        #expect(budget.downgraded == 0)
    }

    @Test func routineSendsAreFreeAndNeverDowngraded() {
        var budget = ChannelBudget.fresh(now: Self.hour, policy: Self.policy)
        for second in 0..<10 {
            let now = Self.hour.addingTimeInterval(Double(second))
            let decision = budget.decide(wanting: .opportunistic, now: now, policy: Self.policy)
            #expect(decision.priority == .opportunistic)
            #expect(!decision.downgraded)
            budget.recordSent(priority: decision.priority, downgraded: false, now: now, policy: Self.policy)
        }
        #expect(budget.decide(wanting: .immediate, now: Self.hour.addingTimeInterval(20), policy: Self.policy).priority == .immediate)
    }

    @Test(arguments: [
        // (profile budget, shrink factor, floor, expected limit after one 429)
        (12, 0.5, 1, 6), (3, 0.5, 1, 1), (1, 0.5, 1, 1), (1, 0.5, 0, 0), (60, 0.25, 1, 15),
    ])
    func aThrottleShrinksTheBudget(budget perHour: Int, factor: Double, floor: Int, expected: Int) {
        let policy = BudgetPolicy(profile: BudgetProfile(name: "p", immediatePerHour: perHour), shrinkFactor: factor, minimumPerHour: floor)
        var budget = ChannelBudget.fresh(now: Self.hour, policy: policy)
        budget.recordThrottled(now: Self.hour.addingTimeInterval(60), policy: policy)
        #expect(budget.limit(now: Self.hour.addingTimeInterval(60), policy: policy) == expected)
        #expect(budget.throttleHits == 1)
        // The rest of the window is spent.
        #expect(budget.decide(wanting: .immediate, now: Self.hour.addingTimeInterval(61), policy: policy) == BudgetDecision(priority: .opportunistic, downgraded: true, remaining: 0))
    }

    @Test func aShrunkBudgetRecoversHourByHour() {
        let policy = BudgetPolicy(profile: BudgetProfile(name: "p", immediatePerHour: 12), recoveryPerHour: 2)
        var budget = ChannelBudget.fresh(now: Self.hour, policy: policy)
        let throttledAt = Self.hour.addingTimeInterval(1800)
        budget.recordThrottled(now: throttledAt, policy: policy)
        budget.recordThrottled(now: throttledAt.addingTimeInterval(1), policy: policy)
        #expect(budget.limit(now: throttledAt, policy: policy) == 3)
        let expected: [(Double, Int)] = [(0.5, 3), (1, 5), (2.9, 7), (3, 9), (4, 11), (5, 12), (100, 12), (1e9, 12)]
        for (hours, limit) in expected {
            #expect(budget.limit(now: throttledAt.addingTimeInterval(1 + hours * 3600), policy: policy) == limit, "after \(hours)h")
        }
        // Once fully recovered, a new window forgets the shrink.
        let later = throttledAt.addingTimeInterval(10 * 3600)
        let rolled = budget.rolled(to: later, policy: policy)
        #expect(rolled.shrunkLimit == nil)
        #expect(rolled.throttleHits == 0)
        #expect(rolled.decide(wanting: .immediate, now: later, policy: policy).remaining == 11)
    }

    @Test func aThrottleAfterRecoveryShrinksFromTheRecoveredLimit() {
        let policy = BudgetPolicy(profile: BudgetProfile(name: "p", immediatePerHour: 12))
        var budget = ChannelBudget.fresh(now: Self.hour, policy: policy)
        budget.recordThrottled(now: Self.hour, policy: policy)
        let later = Self.hour.addingTimeInterval(3 * 3600)
        #expect(budget.limit(now: later, policy: policy) == 12)
        budget.recordThrottled(now: later, policy: policy)
        #expect(budget.limit(now: later, policy: policy) == 6)
    }

    @Test(arguments: [("standard", 12), ("frequent-updates", 60)])
    func builtInProfilesAreConservative(name: String, perHour: Int) throws {
        let profile = try #require(BudgetProfile.named(name))
        #expect(profile.immediatePerHour == perHour)
        #expect(profile.immediatePerHour < 15 || name == "frequent-updates")
        #expect(BudgetProfile.named("unknown") == nil)
    }
}
