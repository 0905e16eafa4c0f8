import Foundation
import Synchronization
import Testing
import TestSupport

/// Several `serve` processes on one Postgres, restarted (SIGTERM) or killed one at a time while
/// the feed keeps posting to whichever API is up, as a load balancer would: no event is lost,
/// every channel ends on its game's newest state, and every goal is announced, in order (once,
/// when nothing was killed). Part of the serialized fault suite: these tests run many processes,
/// and the other fault tests' recovery bounds must not share the machine with them.
extension DeliveryFaultTests {
    /// The API addresses a load balancer would send the feed to.
    final class LoadBalancer: Sendable {
        private let urls = Mutex<[String]>([])
        func add(_ url: String) { urls.withLock { $0.append(url) } }
        func remove(_ url: String) { urls.withLock { $0.removeAll { $0 == url } } }
        var current: [String] { urls.withLock { $0 } }
    }

    @Test("stop and restart each of two instances while goals flow: nothing lost, nothing repeated")
    func rollingRestartLosesNothing() async throws {
        try await FaultBed.with { bed in
            let balancer = LoadBalancer()
            var first = try await bed.serve()
            let second = try await bed.serve()
            balancer.add(try #require(first.url))
            balancer.add(try #require(second.url))

            // Each step posts two rounds (a goal in every game) while one instance stops or starts.
            try await post(rounds: 1...2, bed: bed, balancer: balancer)
            balancer.remove(try #require(first.url))
            async let firstStopped: Void = bed.stop(first.process)
            try await post(rounds: 3...4, bed: bed, balancer: balancer)
            await firstStopped

            async let restarted = bed.serve()
            try await post(rounds: 5...6, bed: bed, balancer: balancer)
            first = try await restarted
            balancer.add(try #require(first.url))

            balancer.remove(try #require(second.url))
            async let secondStopped: Void = bed.stop(second.process)
            try await post(rounds: 7...8, bed: bed, balancer: balancer)
            await secondStopped

            async let secondAgain = bed.serve()
            try await post(rounds: 9...10, bed: bed, balancer: balancer)
            let replacement = try await secondAgain

            let rounds = 10
            try await eventually("every channel shows its newest state") { try await bed.caughtUp(home: rounds) }
            let stored = try await bed.e2e.pool.query("SELECT count(*)::int4 AS n FROM events").first?.decode("n", as: Int32.self)
            #expect(stored == Int32(rounds * FaultBed.games.count), "events stored")
            let verdicts = try FaultBed.games.map { game in
                try bed.verdict(game, home: rounds, players: (1...rounds).map { "\(game)-P\($0)" })
            }
            for verdict in verdicts {
                #expect(verdict.newestStateShown && verdict.alertsLost.isEmpty && verdict.duplicates == 0 && verdict.inOrder, "\(verdict)")
            }
            Self.report("rolling restart of 2 instances (SIGTERM, restart, one at a time) while goals flow", verdicts, recoveredFrom: nil)
            await bed.stop(first.process)
            await bed.stop(replacement.process)
        }
    }

    @Test("roles apart (2 api, 2 worker, 2 poller): each api and worker restarted, a worker and the poller leader SIGKILLed, while goals flow")
    func rolesApartSurviveRestartsAndKills() async throws {
        try await FaultBed.with { bed in
            let balancer = LoadBalancer()
            var api = [try await bed.serve(roles: "api"), try await bed.serve(roles: "api")]
            var workers = [try await bed.serve(roles: "worker"), try await bed.serve(roles: "worker")]
            var pollers = [try await bed.serve(roles: "poller"), try await bed.serve(roles: "poller")]
            for instance in api { balancer.add(try #require(instance.url)) }

            try await post(rounds: 1...2, bed: bed, balancer: balancer)
            // Each API in turn: out of the balancer, SIGTERM, started again, back in.
            for index in api.indices {
                let url = try #require(api[index].url)
                balancer.remove(url)
                async let stopped: Void = bed.stop(api[index].process)
                try await post(rounds: (3 + index * 2)...(4 + index * 2), bed: bed, balancer: balancer)
                await stopped
                api[index] = try await bed.serve(roles: "api")
                balancer.add(try #require(api[index].url))
            }
            // A worker stopped cleanly and started again.
            async let workerStopped: Void = bed.stop(workers[0].process)
            try await post(rounds: 7...7, bed: bed, balancer: balancer)
            await workerStopped
            workers[0] = try await bed.serve(roles: "worker")
            // A worker killed: its leased rows come back when the lease (2 s) expires.
            workers[1].process.signal(SIGKILL)
            try await post(rounds: 8...8, bed: bed, balancer: balancer)
            #expect(await workers[1].process.waitForExit(timeout: .seconds(10)) != nil)
            workers[1] = try await bed.serve(roles: "worker")
            // The poller leader killed: the standby takes the lead; a new standby is started.
            try await eventually("a poller leads") { pollers.contains { Self.leads($0.process) } }
            let leader = try #require(pollers.firstIndex { Self.leads($0.process) })
            let standby = 1 - leader
            #expect(!Self.leads(pollers[standby].process), "two pollers lead at once")
            let killed = ContinuousClock.now
            pollers[leader].process.signal(SIGKILL)
            async let posted: Void = post(rounds: 9...10, bed: bed, balancer: balancer)
            try await eventually("the standby poller leads") { Self.leads(pollers[standby].process) }
            let failover = ContinuousClock.now - killed
            try await posted
            #expect(await pollers[leader].process.waitForExit(timeout: .seconds(10)) != nil)
            print("FAILOVER | poller leader SIGKILLed; the standby led \(failover.formatted(.units(allowed: [.milliseconds]))) later (SCORECAST_POLLER_LEADER_CHECK_MS 2000) |")
            pollers[leader] = try await bed.serve(roles: "poller")

            let rounds = 10
            try await eventually("every channel shows its newest state") { try await bed.caughtUp(home: rounds) }
            let stored = try await bed.e2e.pool.query("SELECT count(*)::int4 AS n FROM events").first?.decode("n", as: Int32.self)
            #expect(stored == Int32(rounds * FaultBed.games.count), "events stored")
            let verdicts = try FaultBed.games.map { game in
                try bed.verdict(game, home: rounds, players: (1...rounds).map { "\(game)-P\($0)" })
            }
            for verdict in verdicts {
                // At least once after a SIGKILL: a repeat is allowed, a loss is not.
                #expect(verdict.newestStateShown && verdict.alertsLost.isEmpty && verdict.inOrder, "\(verdict)")
            }
            Self.report(
                "roles apart (2 api, 2 worker, 2 poller): api and worker restarts, a worker and the poller leader SIGKILLed, while goals flow",
                verdicts, recoveredFrom: nil)
            for instance in api + workers + pollers { await bed.stop(instance.process) }
        }
    }

    /// Whether `poller` has logged that it took the lead.
    private static func leads(_ poller: ScorecastProcess) -> Bool {
        (poller.errorOutput + poller.output).contains("became the poller leader")
    }

    /// Posts a goal in every game for each round, to the first instance in `balancer` that takes it
    /// (events are idempotent by id, so a request retried elsewhere is never counted twice).
    private func post(rounds: ClosedRange<Int>, bed: FaultBed, balancer: LoadBalancer) async throws {
        for round in rounds {
            let events = FaultBed.games.map { FaultBed.event($0, seq: round, player: "\($0)-P\(round)", home: round) }
            var failures: [String] = []
            var posted = false
            for url in balancer.current where !posted {
                let sent = try await ScorecastProcess.run(
                    ["events", "send", "--url", url, "--json", #"{"events": [\#(events.joined(separator: ","))]}"#],
                    environment: ["SCORECAST_API_KEY": bed.key])
                if sent.code == 0 { posted = true } else { failures.append("\(url): \(sent.stderr)") }
            }
            #expect(posted, "round \(round) reached no instance: \(failures)")
        }
    }
}
