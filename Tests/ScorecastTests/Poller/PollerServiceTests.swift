import Clocks
import Foundation
import Lifecycle
import Postgres
@testable import Server
import Synchronization
import TestSupport
import Testing

/// A duty that records the times it ran (and may fail).
final class RecordingDuty: PollerDuty {
    let name: String
    let interval: Duration
    let fails: Bool
    private let runs = Mutex<[Date]>([])

    init(_ name: String, every interval: Duration, fails: Bool = false) {
        self.name = name
        self.interval = interval
        self.fails = fails
    }

    var times: [Date] { runs.withLock { $0 } }

    func run(at now: Date) async throws -> DutyReport {
        runs.withLock { $0.append(now) }
        if fails { throw PostgresError(.queryFailed, "scripted failure") }
        return DutyReport(counts: ["runs": 1])
    }
}

/// The poller service: its schedule on a manual clock, and leadership among instances sharing
/// one schema with the leader's lock connection killed.
@Suite struct PollerServiceTests {
    @Test func theLeaderRunsEachDutyOnItsScheduleAndSurvivesAFailingOne() async throws {
        try await PollerDatabase.with { db in
            let clock = ManualServiceClock(pollerTestNow)
            let fast = RecordingDuty("fast", every: .seconds(10))
            let slow = RecordingDuty("slow", every: .seconds(60))
            let broken = RecordingDuty("broken", every: .seconds(30), fails: true)
            let failures = Mutex(0)
            let poller = Poller(
                duties: [fast, slow, broken], lock: LeaderLock(configuration: db.configuration, logger: PollerDatabase.logger),
                clock: clock, leaderCheckInterval: .seconds(2), logger: PollerDatabase.logger,
                observer: { _, result in if case .failure = result { failures.withLock { $0 += 1 } } })
            let shutdown = ShutdownSignal()
            async let running: Void = poller.run(until: shutdown)

            try await eventually("each duty runs once at start") { fast.times.count == 1 && slow.times.count == 1 && broken.times.count == 1 }
            #expect(poller.isLeader)
            for step in 1...6 {
                try await eventually("the duty loop and the lock watcher sleep") { clock.sleeperCount >= 2 }  // the duty loop and the lock watcher wait
                clock.advance(by: .seconds(10))
                try await eventually("step \(step): the fast duty runs again") { fast.times.count == step + 1 }
            }
            try await eventually("the slow duty runs twice and the broken one three times") { slow.times.count == 2 && broken.times.count == 3 }
            let t0 = pollerTestNow
            #expect(fast.times == (0...6).map { t0.addingTimeInterval(Double($0) * 10) })
            #expect(slow.times == [t0, t0.addingTimeInterval(60)])
            #expect(broken.times == [t0, t0.addingTimeInterval(30), t0.addingTimeInterval(60)])
            #expect(failures.withLock { $0 } == 3)

            // Every sleep is on the manual clock, which no longer moves: the poller returns only
            // because it stops on the signal (no wall-clock bound needed to prove it).
            shutdown.trigger()
            try await running
            #expect(try await LeaderLock.holder(on: db.pool) == nil)     // released, not left to a timeout
        }
    }

    @Test func anotherInstanceTakesOverWhenTheLeadersConnectionDies() async throws {
        try await PollerDatabase.with { db in
            let duties = [RecordingDuty("a", every: .milliseconds(50)), RecordingDuty("b", every: .milliseconds(50))]
            let locks = (0..<2).map { _ in LeaderLock(configuration: db.configuration, logger: PollerDatabase.logger) }
            let pollers = (0..<2).map { index in
                Poller(duties: [duties[index]], lock: locks[index], leaderCheckInterval: .milliseconds(100), logger: PollerDatabase.logger)
            }
            let shutdowns = [ShutdownSignal(), ShutdownSignal()]
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<2 { group.addTask { try await pollers[index].run(until: shutdowns[index]) } }

                try await eventually("one poller leads") { pollers.filter(\.isLeader).count == 1 }
                let leaderIndex = pollers.firstIndex { $0.isLeader }
                let leader = try #require(leaderIndex)
                let follower = 1 - leader
                #expect(try await LeaderLock.holder(on: db.pool) == locks[leader].backendPID)
                try await eventually("the leader runs its duties") { !duties[leader].times.isEmpty }    // the leader does the duties
                #expect(pollers.filter(\.isLeader).count == 1)                 // still exactly one
                #expect(duties[follower].times.isEmpty)

                // Kill the leader's lock connection from outside, as a network cut or a crash would.
                let pid = try #require(locks[leader].backendPID)
                _ = try await db.pool.query("SELECT pg_terminate_backend(\(pid))")
                // No bound on how soon (a 3 s one flaked on a loaded machine): the manual-clock
                // test above proves the schedule; this one proves the hand-over happens.
                try await eventually("the follower takes the lead") { pollers[follower].isLeader && !pollers[leader].isLeader }
                try await eventually("the new leader runs its duties") { !duties[follower].times.isEmpty }
                let oldLeaderRuns = duties[leader].times.count
                try await Task.sleep(for: .milliseconds(300))
                #expect(duties[leader].times.count == oldLeaderRuns)             // the old leader stopped its duties
                #expect(pollers[leader].leadershipTerms == 1 && pollers[follower].leadershipTerms == 1)
                #expect(try await LeaderLock.holder(at: db.pool, is: locks[follower]))

                // The new leader stops cleanly: the old one, contending again, takes over.
                shutdowns[follower].trigger()
                try await eventually("the poller leads again") { pollers[leader].isLeader }
                #expect(pollers[leader].leadershipTerms == 2)
                shutdowns[leader].trigger()
                try await group.waitForAll()
            }
            #expect(try await LeaderLock.holder(on: db.pool) == nil)
        }
    }
}

extension LeaderLock {
    /// Whether the holder of the poller lock is `lock`'s connection.
    static func holder(at pool: PostgresPool, is lock: LeaderLock) async throws -> Bool {
        guard let pid = lock.backendPID else { return false }
        return try await holder(on: pool) == pid
    }
}
