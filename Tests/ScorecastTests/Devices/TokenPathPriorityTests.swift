import Clocks
import DeliveryEngine
@testable import Devices
import Foundation
import PrometheusMetrics
@testable import Registry
import ScorecastCore
@testable import ServiceBase
import Testing

/// The token path's priorities: the light tier, like the channels, and a budget per activity.
extension KickoffFanOutTests {
    @Test func tokenPathDevicesWithFrequentUpdatesOffGetTheLightTier() async throws {
        try await RegistryFixture.with { fixture in
            _ = try await fixture.addApp(environment: .sandbox)
            try await addGame(fixture)
            let frequent = try await device(fixture, "frequent", token: 1, os: "17.4", follows: [])
            let light = try await device(fixture, "light", token: 2, os: "17.4", frequent: false, follows: [])
            let store = DeviceStore(pool: fixture.pool)
            _ = try await store.registerActivityToken(deviceID: frequent.id, gameID: "g1", token: AppAPIHarness.token(11))
            _ = try await store.registerActivityToken(deviceID: light.id, gameID: "g1", token: AppAPIHarness.token(12))

            let post = feed(fixture)
            let fanOut = try fanOut(fixture)
            // A period change the feed marks alerting: priority 10 on the standard tier; the light
            // tier ignores the feed's flag (priority 10 only for a start, a score and the end).
            try await post(#"{"id":"e1","game":"g1","seq":1,"occurredAt":"2026-11-29T20:00:00Z","kind":"start","scoreboard":{"home":0,"away":0,"period":"1H"}}"#)
            try await fanOut.tick()
            try await post(#"{"id":"e2","game":"g1","seq":2,"occurredAt":"2026-11-29T20:47:00Z","kind":"period","alert":true,"scoreboard":{"period":"HT"}}"#)
            try await fanOut.tick()

            func priorities(_ token: Int) -> [String?] {
                fixture.simulator.receivedRequests().filter { $0.path == "/3/device/\(AppAPIHarness.token(token))" }
                    .map { request in request.headers.first { $0.name == "apns-priority" }?.value }
            }
            #expect(priorities(11) == ["10", "10"])
            #expect(priorities(12) == ["10", "5"])
        }
    }

    @Test func anActivityWhoseBudgetIsSpentGetsPriorityFiveCountedAsDowngradedAndTheFinalWhistleSpendsTheReserve() async throws {
        try await RegistryFixture.with { fixture in
            let app = try await fixture.addApp(environment: .sandbox)
            // Two priority-10 updates an hour, the last kept for the final whistle
            // (SCORECAST_BUDGET_FINAL_RESERVE's default of 1).
            try await fixture.pool.execute("UPDATE apps SET budget_per_hour = 2")
            try await addGame(fixture)
            let first = try await device(fixture, "first", token: 1, os: "17.4", follows: [])
            let store = DeviceStore(pool: fixture.pool)
            _ = try await store.registerActivityToken(deviceID: first.id, gameID: "g1", token: AppAPIHarness.token(11))

            let post = feed(fixture)
            let registry = MetricsRegistry()
            let metrics = try DeviceMetrics(registry: registry)
            let fanOut = try fanOut(fixture, metrics: metrics)
            try await post(#"{"id":"e1","game":"g1","seq":1,"occurredAt":"2026-11-29T20:00:00Z","kind":"start","scoreboard":{"home":0,"away":0,"period":"1H"}}"#)
            try await fanOut.tick()
            // A second activity registered later has a budget of its own.
            let second = try await device(fixture, "second", token: 2, os: "17.4", follows: [])
            _ = try await store.registerActivityToken(deviceID: second.id, gameID: "g1", token: AppAPIHarness.token(12))
            try await post(#"{"id":"e2","game":"g1","seq":2,"occurredAt":"2026-11-29T20:12:00Z","kind":"score","team":"home","scoreboard":{"home":1}}"#)
            try await fanOut.tick()
            #expect(metrics.downgraded.value(AppLabels(app: app.bundleID)) == 1, "the first activity's goal")
            #expect(try await KickoffStore(pool: fixture.pool).progress().activityUpdatesDowngraded == 1)
            try await post(#"{"id":"e3","game":"g1","seq":3,"occurredAt":"2026-11-29T21:50:00Z","kind":"final"}"#)
            try await fanOut.tick()

            func priorities(_ token: Int) -> [String?] {
                fixture.simulator.receivedRequests().filter { $0.path == "/3/device/\(AppAPIHarness.token(token))" }
                    .map { request in request.headers.first { $0.name == "apns-priority" }?.value }
            }
            #expect(priorities(11) == ["10", "5", "10"], "the start spends the budget's free send, the goal finds only the reserve, the end spends it")
            #expect(priorities(12) == ["10", "10"])
            #expect(fixture.simulator.deviceTokens().map(\.ends) == [1, 1], "both activities got the end")
            let spent = try await fixture.pool.query("SELECT count(*) AS n FROM activity_priority_sends").first?.decode("n", as: Int64.self)
            #expect(spent == 4)
            #expect(metrics.downgraded.value(AppLabels(app: app.bundleID)) == 1, "the ends spent the reserve: not downgraded")
            #expect(try await KickoffStore(pool: fixture.pool).progress().activityUpdatesDowngraded == 1)
            #expect(registry.render().contains("scorecast_activity_updates_downgraded_total{app=\"\(app.bundleID)\"} 1\n"), "\(registry.render())")
        }
    }

    @Test func anActivitysBudgetComesBackAnHourAfterItsSendOnTheServiceClock() async throws {
        try await RegistryFixture.with { fixture in
            _ = try await fixture.addApp(environment: .sandbox)
            // One free priority-10 update an hour, the second kept for the final whistle.
            try await fixture.pool.execute("UPDATE apps SET budget_per_hour = 2")
            try await addGame(fixture)
            let device = try await device(fixture, "d1", token: 1, os: "17.4", follows: [])
            _ = try await DeviceStore(pool: fixture.pool).registerActivityToken(deviceID: device.id, gameID: "g1", token: AppAPIHarness.token(11))

            let post = feed(fixture)
            let clock = ManualServiceClock(Self.kickoff)
            let fanOut = try fanOut(fixture, clock: clock)
            try await post(#"{"id":"e1","game":"g1","seq":1,"occurredAt":"2026-11-29T20:00:00Z","kind":"start","scoreboard":{"home":0,"away":0,"period":"1H"}}"#)
            try await fanOut.tick()
            try await post(#"{"id":"e2","game":"g1","seq":2,"occurredAt":"2026-11-29T20:12:00Z","kind":"score","team":"home","scoreboard":{"home":1}}"#)
            try await fanOut.tick()
            // An hour and a second after the start's send, by the service clock, it leaves the rolling hour.
            clock.advance(by: .seconds(3_601))
            try await post(#"{"id":"e3","game":"g1","seq":3,"occurredAt":"2026-11-29T21:01:00Z","kind":"score","team":"home","scoreboard":{"home":2}}"#)
            try await fanOut.tick()

            let priorities = fixture.simulator.receivedRequests().filter { $0.path == "/3/device/\(AppAPIHarness.token(11))" }
                .map { request in request.headers.first { $0.name == "apns-priority" }?.value }
            #expect(priorities == ["10", "5", "10"])
            let sentAt = try await fixture.pool.query("SELECT sent_at FROM activity_priority_sends ORDER BY sent_at")
                .map { try $0.decode("sent_at", as: Date.self) }
            #expect(sentAt == [Self.kickoff.addingTimeInterval(3_601)], "the start's send left the ledger; the second goal's is dated by the service clock")
        }
    }

    @Test func theActivityBudgetFollowsTheAppAndTheDevice() {
        let budget = ActivityBudget(profiles: BudgetProfiles(standardPerHour: 12, frequentPerHour: 60), finalReserve: 1)
        var app = AppRecord(id: 1, bundleID: "com.example.scores", environment: .sandbox, teamID: "TEAM123456", keyID: "KEY1234567", keyPath: "/nonexistent")
        app.frequentUpdates = true
        #expect(budget.perHour(app: app, deviceFrequentUpdates: true) == 60)
        #expect(budget.perHour(app: app, deviceFrequentUpdates: false) == 12, "the user turned frequent updates off")
        app.frequentUpdates = false
        #expect(budget.perHour(app: app, deviceFrequentUpdates: true) == 12)
        app.budgetPerHour = 3
        #expect(budget.perHour(app: app, deviceFrequentUpdates: true) == 3)
        #expect(budget.sendsImmediately(priority: 10, spent: 1, budget: 3, final: false))
        #expect(!budget.sendsImmediately(priority: 10, spent: 2, budget: 3, final: false), "the last one is the final whistle's")
        #expect(budget.sendsImmediately(priority: 10, spent: 2, budget: 3, final: true))
        #expect(!budget.sendsImmediately(priority: 10, spent: 3, budget: 3, final: true))
        #expect(!budget.sendsImmediately(priority: 5, spent: 0, budget: 3, final: false))
        #expect(!ActivityBudget(profiles: BudgetProfiles(standardPerHour: 12, frequentPerHour: 60), finalReserve: 0).sendsImmediately(priority: 10, spent: 3, budget: 3, final: false))
        #expect(ActivityBudget(profiles: BudgetProfiles(standardPerHour: 12, frequentPerHour: 60), finalReserve: 0).sendsImmediately(priority: 10, spent: 2, budget: 3, final: false))
    }
}
