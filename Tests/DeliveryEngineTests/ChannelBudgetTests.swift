import APNsCore
import Foundation
import ScorecastCore
import Testing
@testable import DeliveryEngine

@Suite struct ChannelBudgetTests {
    /// 2025-11-29T21:00:00Z, the start of a clock hour (which the budget ignores).
    static let hour = Date(timeIntervalSince1970: 1_764_450_000)
    static let policy = BudgetPolicy(profile: BudgetProfile(name: "test", immediatePerHour: 3))

    /// Decides a send wanting `wanting` at `now` and appends what the ledger would record once
    /// APNs accepted it.
    static func send(_ budget: inout ChannelBudget, wanting: BroadcastPriority = .immediate, at now: Date, policy: BudgetPolicy = policy, final: Bool = false) -> BudgetDecision {
        let decision = budget.decide(wanting: wanting, now: now, policy: policy, final: final)
        if let entry = budget.accepted(priority: decision.priority, at: now) {
            budget = budget.appending(entry)
        }
        return decision
    }

    /// A 429 at `now` barring priority 10 for `seconds`, appended.
    static func throttle(_ budget: inout ChannelBudget, at now: Date, barring seconds: Double = 0, policy: BudgetPolicy) {
        budget = budget.appending(budget.throttled(now: now, barredUntil: now.addingTimeInterval(seconds), policy: policy))
    }

    @Test func theWindowIsTheHourEndingNow() {
        let now = Self.hour.addingTimeInterval(1234)
        #expect(ChannelBudget.windowStart(endingAt: now, policy: Self.policy) == now.addingTimeInterval(-3600))
        #expect(ChannelBudget.memoryStart(endingAt: now, policy: Self.policy) == now.addingTimeInterval(-48 * 3600))
    }

    /// Sends wanted at 10, one per row: (seconds into the first hour, expected priority,
    /// downgraded, remaining). The budget is a rolling hour, as APNs counts it: a new clock hour
    /// brings nothing back; a send frees its slot 3,600 s after it went.
    @Test func spendsTheBudgetThenDowngradesUntilSendsLeaveTheRollingHour() {
        var budget = ChannelBudget()
        let rows: [(Double, BroadcastPriority, Bool, Int)] = [
            (10, .immediate, false, 2), (20, .immediate, false, 1), (30, .immediate, false, 0),
            (40, .opportunistic, true, 0), (3599, .opportunistic, true, 0),
            (3600, .opportunistic, true, 0), (3610, .immediate, false, 0), (3615, .opportunistic, true, 0),
            (3620, .immediate, false, 0),
        ]
        var downgrades = 0
        for (offset, priority, downgraded, remaining) in rows {
            let decision = Self.send(&budget, at: Self.hour.addingTimeInterval(offset))
            #expect(decision == BudgetDecision(priority: priority, downgraded: downgraded, remaining: remaining), "at +\(offset)s")
            if decision.downgraded { downgrades += 1 }
        }
        let usage = budget.usage(now: Self.hour.addingTimeInterval(3620), policy: Self.policy, downgrades: downgrades)
        #expect(usage == BudgetUsage(
            windowStart: Self.hour.addingTimeInterval(20), priority10Used: 3, priority10Limit: 3, downgrades: 4, throttled: 0,
            barredUntil: nil))
        #expect(budget.immediateSends.count == 5, "the ledger keeps the priority-10 sends, not the downgrades")
    }

    /// A match crossing 20:00: goals at 19:40, 19:50 and 19:59 spend the budget; at 20:00:01,
    /// 20:20 and 20:39:59 the hour APNs counts still holds them, whatever clock hour it is.
    @Test func aMatchCrossingTheHourCannotSpendTwoBudgets() {
        let eight = Self.hour.addingTimeInterval(3600)
        var budget = ChannelBudget()
        for offset in [-1200.0, -600, -60] {
            #expect(Self.send(&budget, at: eight.addingTimeInterval(offset)).priority == .immediate, "at \(offset)s from 20:00")
        }
        for offset in [1.0, 1200, 2399] {
            let decision = budget.decide(wanting: .immediate, now: eight.addingTimeInterval(offset), policy: Self.policy)
            #expect(decision == BudgetDecision(priority: .opportunistic, downgraded: true, remaining: 0), "at 20:00 + \(offset)s")
            #expect(budget.usage(now: eight.addingTimeInterval(offset), policy: Self.policy, downgrades: 0).priority10Used == 3, "the figure shown agrees")
        }
        // 19:40's goal leaves the hour at 20:40: one slot again.
        #expect(budget.decide(wanting: .immediate, now: eight.addingTimeInterval(2401), policy: Self.policy)
            == BudgetDecision(priority: .immediate, downgraded: false, remaining: 0))
        #expect(budget.usage(now: eight.addingTimeInterval(2401), policy: Self.policy, downgrades: 0).priority10Used == 2)
    }

    /// With a reserve of 1 out of 3, two goals go at 10, the third goal at 5, and the final
    /// whistle still at 10; after it nothing is left, final or not.
    @Test func theFinalWhistleKeepsItsReserve() {
        let policy = BudgetPolicy(profile: BudgetProfile(name: "test", immediatePerHour: 3), finalReserve: 1)
        var budget = ChannelBudget()
        let rows: [(Double, Bool, BroadcastPriority, Int)] = [
            (10, false, .immediate, 1), (20, false, .immediate, 0), (30, false, .opportunistic, 0),
            (40, true, .immediate, 0), (50, true, .opportunistic, 0),
        ]
        for (offset, final, priority, remaining) in rows {
            let decision = Self.send(&budget, at: Self.hour.addingTimeInterval(offset), policy: policy, final: final)
            #expect(decision == BudgetDecision(priority: priority, downgraded: priority == .opportunistic, remaining: remaining), "at +\(offset)s")
        }
        // A reserve larger than the budget keeps all of it for the final whistle.
        let allReserved = BudgetPolicy(profile: BudgetProfile(name: "test", immediatePerHour: 1), finalReserve: 10)
        #expect(ChannelBudget().decide(wanting: .immediate, now: Self.hour, policy: allReserved).priority == .opportunistic)
        #expect(ChannelBudget().decide(wanting: .immediate, now: Self.hour, policy: allReserved, final: true).priority == .immediate)
    }

    @Test func routineSendsAreFreeAndNeverDowngraded() {
        var budget = ChannelBudget()
        for second in 0..<10 {
            let decision = Self.send(&budget, wanting: .opportunistic, at: Self.hour.addingTimeInterval(Double(second)))
            #expect(decision.priority == .opportunistic)
            #expect(!decision.downgraded)
        }
        #expect(budget == ChannelBudget(), "a routine send leaves nothing in the ledger")
        #expect(budget.decide(wanting: .immediate, now: Self.hour.addingTimeInterval(20), policy: Self.policy).priority == .immediate)
    }

    @Test(arguments: [
        // (profile budget, shrink factor, floor, expected limit after one 429)
        (12, 0.5, 1, 6), (3, 0.5, 1, 1), (1, 0.5, 1, 1), (1, 0.5, 0, 0), (60, 0.25, 1, 15),
    ])
    func aThrottleShrinksTheBudget(budget perHour: Int, factor: Double, floor: Int, expected: Int) {
        let policy = BudgetPolicy(profile: BudgetProfile(name: "p", immediatePerHour: perHour), shrinkFactor: factor, minimumPerHour: floor)
        var budget = ChannelBudget()
        let at = Self.hour.addingTimeInterval(60)
        Self.throttle(&budget, at: at, policy: policy)
        #expect(budget.limit(now: at, policy: policy) == expected)
        #expect(budget.usage(now: at, policy: policy, downgrades: 0).throttled == 1)
    }

    /// A 429 bars priority 10 for its `Retry-After`, and only that long: not for the rest of
    /// the clock hour, nor of the rolling one.
    @Test func aThrottleBarsPriorityTenForItsRetryAfterOnly() {
        let policy = BudgetPolicy(profile: BudgetProfile(name: "p", immediatePerHour: 12))
        var budget = ChannelBudget()
        let at = Self.hour.addingTimeInterval(300)  // 21:05
        #expect(Self.send(&budget, at: at.addingTimeInterval(-10), policy: policy).priority == .immediate)
        Self.throttle(&budget, at: at, barring: 60, policy: policy)
        #expect(budget.usage(now: at, policy: policy, downgrades: 0).barredUntil == at.addingTimeInterval(60))
        let barred = Self.send(&budget, at: at.addingTimeInterval(59), policy: policy)
        #expect(barred == BudgetDecision(priority: .opportunistic, downgraded: true, remaining: 5))
        #expect(Self.send(&budget, at: at.addingTimeInterval(60), policy: policy).priority == .immediate)
        #expect(budget.usage(now: at.addingTimeInterval(60), policy: policy, downgrades: 0) == BudgetUsage(
            windowStart: at.addingTimeInterval(60 - 3600), priority10Used: 2, priority10Limit: 6, downgrades: 0, throttled: 1,
            barredUntil: nil))
        // A 429 without Retry-After bars nothing: the shrunk limit alone holds the channel.
        var unbarred = ChannelBudget()
        Self.throttle(&unbarred, at: at, policy: policy)
        #expect(unbarred.decide(wanting: .immediate, now: at, policy: policy).priority == .immediate)
    }

    @Test func aShrunkBudgetRecoversHourByHourAndIsForgottenAfterTheMemory() {
        let policy = BudgetPolicy(profile: BudgetProfile(name: "p", immediatePerHour: 12), recoveryPerHour: 2)
        var budget = ChannelBudget()
        let throttledAt = Self.hour.addingTimeInterval(1800)
        Self.throttle(&budget, at: throttledAt, policy: policy)
        Self.throttle(&budget, at: throttledAt.addingTimeInterval(1), policy: policy)
        #expect(budget.limit(now: throttledAt.addingTimeInterval(1), policy: policy) == 3)
        let expected: [(Double, Int)] = [(0.5, 3), (1, 5), (2.9, 7), (3, 9), (4, 11), (5, 12), (47, 12), (1e9, 12)]
        for (hours, limit) in expected {
            #expect(budget.limit(now: throttledAt.addingTimeInterval(1 + hours * 3600), policy: policy) == limit, "after \(hours)h")
        }
        let slow = BudgetPolicy(profile: BudgetProfile(name: "p", immediatePerHour: 500), recoveryPerHour: 2)
        var lowered = ChannelBudget()
        Self.throttle(&lowered, at: throttledAt, policy: slow)
        #expect(lowered.limit(now: throttledAt.addingTimeInterval(47 * 3600), policy: slow) == 250 + 94)
        #expect(lowered.limit(now: throttledAt.addingTimeInterval(48 * 3600), policy: slow) == 500, "older than the memory: forgotten")
    }

    @Test func aThrottleAfterRecoveryShrinksFromTheRecoveredLimit() {
        let policy = BudgetPolicy(profile: BudgetProfile(name: "p", immediatePerHour: 12))
        var budget = ChannelBudget()
        Self.throttle(&budget, at: Self.hour, policy: policy)
        let later = Self.hour.addingTimeInterval(3 * 3600)
        #expect(budget.limit(now: later, policy: policy) == 12)
        Self.throttle(&budget, at: later, policy: policy)
        #expect(budget.limit(now: later, policy: policy) == 6)
    }

    @Test(arguments: [("standard", 12), ("frequent-updates", 60)])
    func builtInProfilesAreConservative(name: String, perHour: Int) throws {
        let profile = try #require(BudgetProfile.named(name))
        #expect(profile.immediatePerHour == perHour)
        #expect(profile.immediatePerHour < 15 || name == "frequent-updates")
        #expect(BudgetProfile.named("unknown") == nil)
    }

    /// The one rule for every budget: the app's own, else the profile its frequent updates pick.
    @Test func profilesResolveTheAppsOwnBudgetFirst() {
        let profiles = BudgetProfiles(standardPerHour: 10, frequentPerHour: 40)
        #expect(profiles.profile(appBudget: nil, frequentUpdates: false) == BudgetProfile(name: "standard", immediatePerHour: 10))
        #expect(profiles.profile(appBudget: nil, frequentUpdates: true) == BudgetProfile(name: "frequent-updates", immediatePerHour: 40))
        #expect(profiles.profile(appBudget: 3, frequentUpdates: true).immediatePerHour == 3)
        #expect(profiles.profile(appBudget: 0, frequentUpdates: false).immediatePerHour == 0)
    }
}
