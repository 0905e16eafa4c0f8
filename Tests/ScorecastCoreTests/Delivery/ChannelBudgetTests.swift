import APNsCore
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

    /// Sends wanted at 10, one per row: (seconds into the first hour, expected priority,
    /// downgraded, remaining). The budget is a rolling hour, as APNs counts it: a new clock hour
    /// brings nothing back; a send frees its slot 3,600 s after it went.
    @Test func spendsTheBudgetThenDowngradesUntilSendsLeaveTheRollingHour() {
        var budget = ChannelBudget.fresh(now: Self.hour, policy: Self.policy)
        let rows: [(Double, BroadcastPriority, Bool, Int)] = [
            (10, .immediate, false, 2), (20, .immediate, false, 1), (30, .immediate, false, 0),
            (40, .opportunistic, true, 0), (3599, .opportunistic, true, 0),
            (3600, .opportunistic, true, 0), (3610, .immediate, false, 0), (3615, .opportunistic, true, 0),
            (3620, .immediate, false, 0),
        ]
        for (offset, priority, downgraded, remaining) in rows {
            let now = Self.hour.addingTimeInterval(offset)
            let decision = budget.decide(wanting: .immediate, now: now, policy: Self.policy)
            #expect(decision == BudgetDecision(priority: priority, downgraded: downgraded, remaining: remaining), "at +\(offset)s")
            budget.recordSent(priority: decision.priority, downgraded: decision.downgraded, now: now, policy: Self.policy)
        }
        #expect(budget.immediateSent == 2)
        #expect(budget.downgraded == 2)
        // Sends that left the rolling hour are forgotten as new ones are counted.
        #expect(budget.recentImmediateSends == [30, 3610, 3620].map { Self.hour.addingTimeInterval($0) })
    }

    /// A match crossing 20:00: goals at 19:40, 19:50 and 19:59 spend the budget; at 20:00:01,
    /// 20:20 and 20:39:59 the hour APNs counts still holds them, whatever clock hour it is.
    @Test func aMatchCrossingTheHourCannotSpendTwoBudgets() {
        let eight = Self.hour.addingTimeInterval(3600)
        var budget = ChannelBudget.fresh(now: eight.addingTimeInterval(-1200), policy: Self.policy)
        for offset in [-1200.0, -600, -60] {
            let now = eight.addingTimeInterval(offset)
            let decision = budget.decide(wanting: .immediate, now: now, policy: Self.policy)
            #expect(decision.priority == .immediate, "at \(offset)s from 20:00")
            budget.recordSent(priority: decision.priority, downgraded: decision.downgraded, now: now, policy: Self.policy)
        }
        for offset in [1.0, 1200, 2399] {
            let decision = budget.decide(wanting: .immediate, now: eight.addingTimeInterval(offset), policy: Self.policy)
            #expect(decision == BudgetDecision(priority: .opportunistic, downgraded: true, remaining: 0), "at 20:00 + \(offset)s")
        }
        // 19:40's goal leaves the hour at 20:40: one slot again.
        #expect(budget.decide(wanting: .immediate, now: eight.addingTimeInterval(2401), policy: Self.policy)
            == BudgetDecision(priority: .immediate, downgraded: false, remaining: 0))
    }

    /// With a reserve of 1 out of 3, two goals go at 10, the third goal at 5, and the final
    /// whistle still at 10; after it nothing is left, final or not.
    @Test func theFinalWhistleKeepsItsReserve() {
        let policy = BudgetPolicy(profile: BudgetProfile(name: "test", immediatePerHour: 3), finalReserve: 1)
        var budget = ChannelBudget.fresh(now: Self.hour, policy: policy)
        let rows: [(Double, Bool, BroadcastPriority, Int)] = [
            (10, false, .immediate, 1), (20, false, .immediate, 0), (30, false, .opportunistic, 0),
            (40, true, .immediate, 0), (50, true, .opportunistic, 0),
        ]
        for (offset, final, priority, remaining) in rows {
            let now = Self.hour.addingTimeInterval(offset)
            let decision = budget.decide(wanting: .immediate, now: now, policy: policy, final: final)
            #expect(decision == BudgetDecision(priority: priority, downgraded: priority == .opportunistic, remaining: remaining), "at +\(offset)s")
            budget.recordSent(priority: decision.priority, downgraded: decision.downgraded, now: now, policy: policy)
        }
        // A reserve larger than the budget keeps all of it for the final whistle.
        let allReserved = BudgetPolicy(profile: BudgetProfile(name: "test", immediatePerHour: 1), finalReserve: 10)
        let fresh = ChannelBudget.fresh(now: Self.hour, policy: allReserved)
        #expect(fresh.decide(wanting: .immediate, now: Self.hour, policy: allReserved).priority == .opportunistic)
        #expect(fresh.decide(wanting: .immediate, now: Self.hour, policy: allReserved, final: true).priority == .immediate)
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
