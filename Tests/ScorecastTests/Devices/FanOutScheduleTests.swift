import Clocks
@testable import Devices
import Foundation
import Lifecycle
import Postgres
@testable import Registry
@testable import ServiceBase
import TestSupport
import Testing

/// An idle fan-out waits for due times read from the tables or a NOTIFY, not a poll.
extension KickoffFanOutTests {
    @Test func theWakeTimeIsTheEarliestDueTimeWithinTheIdleLimit() {
        let end = Self.kickoff
        let limit = Duration.seconds(10)
        #expect(FanOutSchedule.wakeTime(roundEnded: end, nextDue: nil, idleLimit: limit) == end.addingTimeInterval(10))
        #expect(FanOutSchedule.wakeTime(roundEnded: end, nextDue: end.addingTimeInterval(3), idleLimit: limit) == end.addingTimeInterval(3))
        #expect(FanOutSchedule.wakeTime(roundEnded: end, nextDue: end.addingTimeInterval(600), idleLimit: limit) == end.addingTimeInterval(10))
        #expect(FanOutSchedule.wakeTime(roundEnded: end, nextDue: end.addingTimeInterval(-5), idleLimit: limit) == end)
    }

    @Test func theNextDueTimeIsReadFromTheTables() async throws {
        try await RegistryFixture.with { fixture in
            _ = try await fixture.addApp(environment: .sandbox)
            try await addGame(fixture, startsAt: Self.kickoff.addingTimeInterval(3_600))
            try await device(fixture, "d1", token: 1, follows: [(.team, "Arsenal")])
            let schedule = FanOutSchedule(pool: fixture.pool)
            let lead = Duration.seconds(300)
            #expect(try await schedule.nextDue(now: Self.kickoff, lead: lead) == Self.kickoff.addingTimeInterval(3_300),
                    "the kick-off's lead time")

            // Kicked off and sent: nothing is waiting.
            #expect(try await fanOut(fixture, now: Self.kickoff.addingTimeInterval(3_300)).tick() == 1)
            #expect(try await schedule.nextDue(now: Self.kickoff, lead: lead) == nil)

            // A kick-off recorded again is planned again: due now until its planning is done.
            try await device(fixture, "d2", token: 2, follows: [(.team, "Arsenal")])
            let store = KickoffStore(pool: fixture.pool)
            #expect(try await store.begin(gameID: "g1", trigger: .command, now: Self.kickoff) == false)
            #expect(try await schedule.nextDue(now: Self.kickoff, lead: lead) == Self.kickoff, "a kick-off being planned is due now")

            // A start given back for a retry is due at its retry time.
            #expect(try await store.planAndClaim(limit: 10, owner: "test", lease: .seconds(600), now: Self.kickoff).claimed.count == 1)
            let retryAt = Self.kickoff.addingTimeInterval(4_000)
            try await fixture.pool.execute("""
                UPDATE activity_starts SET status = 'pending', lease_owner = NULL, lease_expires_at = NULL, not_before = \(retryAt)
                WHERE status = 'sending'
                """)
            #expect(try await schedule.nextDue(now: Self.kickoff, lead: lead) == retryAt)
            try await fixture.pool.execute("UPDATE activity_starts SET not_before = NULL WHERE status = 'pending'")
            #expect(try await schedule.nextDue(now: Self.kickoff, lead: lead) == Self.kickoff, "a planned start is due now")
        }
    }

    @Test func anIdleFanOutIsWokenByAPlannedKickoff() async throws {
        try await RegistryFixture.with { fixture in
            _ = try await fixture.addApp(environment: .sandbox)
            // A day before kick-off: nothing falls due for hours.
            try await addGame(fixture, startsAt: Self.kickoff.addingTimeInterval(86_400))
            for n in 1...3 { try await device(fixture, "d\(n)", token: n, follows: [(.team, "Arsenal")]) }
            var configuration = try Configuration.load(from: [:], workingDirectory: fixture.folder)
            configuration.devices.pollInterval = .zero // the manual clock never moves: no spacing between rounds
            let fanOut = DeviceFanOut(
                pool: fixture.pool, apns: fixture.client, credentials: CredentialStore(), configuration: configuration,
                metrics: nil, logger: RegistryFixture.logger, clock: ManualServiceClock(Self.kickoff), idleLimit: .seconds(3_600))
            let shutdown = ShutdownSignal()
            let running = Task { try await fanOut.run(until: shutdown) }
            defer { shutdown.trigger() }

            // `scorecast games start-activities` records the kick-off and notifies; only the NOTIFY
            // can wake the fan-out before its hour-long idle limit. The first game may still be
            // caught by the fan-out's first round; the second is recorded once that round has sent
            // the first.
            // (The bound below only stops a broken run.)
            _ = try await GameStore(pool: fixture.pool).add(GameDraft(
                id: "g2", league: "EPL", homeTeam: "Spurs", awayTeam: "Everton", startsAt: Self.kickoff.addingTimeInterval(86_400)))
            try await device(fixture, "d4", token: 4, follows: [(.team, "Spurs")])
            let store = KickoffStore(pool: fixture.pool)
            for (game, started) in [("g1", 3), ("g2", 4)] {
                #expect(try await store.begin(gameID: game, trigger: .command, now: Self.kickoff))
                try await eventually("\(game)'s kick-off has started \(started) activities") {
                    try await store.progress().started >= started
                }
                #expect(try await store.progress().started == started)
            }
            #expect(fixture.simulator.deviceTokens().map(\.starts) == [1, 1, 1, 1])
            shutdown.trigger()
            try await running.value
        }
    }

    @Test func anIdleFanOutSleepsOnTheServiceClockUntilTheLeadTime() async throws {
        try await RegistryFixture.with { fixture in
            _ = try await fixture.addApp(environment: .sandbox)
            // Kick-off in 10 minutes: the push-to-start is due in 5 (the lead time).
            try await addGame(fixture, startsAt: Self.kickoff.addingTimeInterval(600))
            try await device(fixture, "d1", token: 1, follows: [(.team, "Arsenal")])
            let configuration = try Configuration.load(from: [:], workingDirectory: fixture.folder)
            let clock = ManualServiceClock(Self.kickoff)
            let fanOut = DeviceFanOut(
                pool: fixture.pool, apns: fixture.client, credentials: CredentialStore(), configuration: configuration,
                metrics: nil, logger: RegistryFixture.logger, clock: clock, idleLimit: .seconds(3_600))
            let shutdown = ShutdownSignal()
            let running = Task { try await fanOut.run(until: shutdown) }
            defer { shutdown.trigger() }

            // After its first round the fan-out sleeps on the service clock, having sent nothing;
            // five minutes of that clock later the start goes out. (The bounds only stop a broken run.)
            try await eventually("the fan-out sleeps on the service clock") { clock.sleeperCount == 1 }
            let store = KickoffStore(pool: fixture.pool)
            #expect(try await store.progress().started == 0)
            clock.advance(by: .seconds(300))
            try await eventually("the kick-off's start is sent at its lead time") { try await store.progress().started == 1 }
            #expect(fixture.simulator.deviceTokens().map(\.starts) == [1])
            shutdown.trigger()
            try await running.value
        }
    }
}
