import APNsSimulator
import Foundation
import Testing

/// Per-channel priority-10 budgets over a rolling hour (apns.md §5).
@Suite struct BudgetTests {
    @Test func priorityTenOverBudgetIsTooManyRequests() async throws {
        let clock = ManualSimulatorClock()
        try await SimulatorFixture.with(configure: {
            $0.clock = clock
            $0.budgetPerHour = 3
            $0.retryAfter = .untilBudgetFrees
        }) { sim in
            let token = try sim.token(issuedAt: Int(clock.now()))
            let channelID = try await sim.createChannel(token: token)
            for _ in 0..<3 {
                #expect(try await sim.broadcast(channelID: channelID, priority: "10", token: token).status == 200)
                clock.advance(by: 60)
            }
            // Priority 5 never counts.
            for _ in 0..<5 { #expect(try await sim.broadcast(channelID: channelID, priority: "5", token: token).status == 200) }
            let throttled = try await sim.broadcast(channelID: channelID, priority: "10", token: token)
            #expect(throttled.status == 429)
            #expect(throttled.reason == "TooManyRequests")
            // The first send (180 s ago) leaves the window in 3,420 s.
            #expect(throttled.headers["retry-after"] == "3420")

            let usage = try #require(sim.simulator.budgets().first)
            #expect(usage.budgetPerHour == 3)
            #expect(usage.usedInWindow == 3)
            #expect(usage.remaining == 0)
            #expect(usage.priorityTenSends == 3)
            #expect(usage.otherSends == 5)
            #expect(usage.throttled == 1)

            // Rolling: once the oldest send is an hour old, one more fits.
            clock.advance(by: 3420)
            let fresh = try sim.token(issuedAt: Int(clock.now()))
            #expect(try await sim.broadcast(channelID: channelID, priority: "10", token: fresh).status == 200)
            #expect(try await sim.broadcast(channelID: channelID, priority: "10", token: fresh).status == 429)

            // Budgets are readable through the admin API too.
            let budgets = try await sim.admin("GET", "/budgets")
            let first = try #require((budgets.json?["budgets"] as? [[String: Any]])?.first)
            #expect(first["channelID"] as? String == channelID)
            #expect(first["throttled"] as? Int == 2)
        }
    }

    @Test func budgetsArePerChannelAndConfigurableAtRunTime() async throws {
        try await SimulatorFixture.with(configure: { $0.budgetPerHour = 1 }) { sim in
            let one = try await sim.createChannel()
            let two = try await sim.createChannel()
            #expect(try await sim.broadcast(channelID: one).status == 200)
            #expect(try await sim.broadcast(channelID: two).status == 200)
            let refused = try await sim.broadcast(channelID: one)
            #expect(refused.status == 429)
            #expect(refused.headers["retry-after"] == nil, "no Retry-After unless configured")
            try sim.simulator.setBudget(perHour: nil)
            #expect(try await sim.broadcast(channelID: one).status == 200)
            let answer = try await sim.admin("POST", "/budget", body: #"{"perHour": 2, "retryAfter": 30}"#)
            #expect(answer.status == 200)
            let again = try await sim.broadcast(channelID: one)
            #expect(again.status == 429)
            #expect(again.headers["retry-after"] == "30")
        }
    }

    @Test func noMessageStoredChannelsCanHaveTheirOwnBudget() async throws {
        try await SimulatorFixture.with(configure: {
            $0.budgetPerHour = 1
            $0.noMessageStoredBudgetPerHour = 2
        }) { sim in
            let noStorage = try await sim.createChannel(policy: 0)
            let stored = try await sim.createChannel(policy: 1)
            #expect(try await sim.broadcast(channelID: noStorage).status == 200)
            #expect(try await sim.broadcast(channelID: noStorage).status == 200)
            #expect(try await sim.broadcast(channelID: noStorage).status == 429)
            #expect(try await sim.broadcast(channelID: stored).status == 200)
            #expect(try await sim.broadcast(channelID: stored).status == 429)
        }
    }
}
