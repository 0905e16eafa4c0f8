import Foundation
import Testing
import TestSupport

/// The embedded cluster `serve` owns, killed or unable to start again: `serve` restarts it and
/// goes on; once it is back every channel shows its game's newest state and every alert is
/// announced. Past the recovery limit `/healthz` answers 503, so a supervisor would restart
/// the process. Each test prints one row of the README's Reliability table.
@Suite("Fault suite: the embedded Postgres supervised", .serialized)
struct EmbeddedPostgresFaultTests {
    /// The pid in the cluster's `postmaster.pid` (its first line).
    static func postmaster(_ bed: FaultBed) throws -> Int32 {
        let text = try String(contentsOf: dataFolder(bed).appendingPathComponent("postmaster.pid"), encoding: .utf8)
        return try #require(text.split(separator: "\n").first.flatMap { Int32($0) })
    }

    static func dataFolder(_ bed: FaultBed) -> URL { bed.e2e.state.appendingPathComponent("postgres/data") }

    /// The newest state and alerts, read through a pool that may meet the outage: false until
    /// the database answers again.
    static func caughtUp(_ bed: FaultBed, home: Int) async -> Bool { (try? await bed.caughtUp(home: home)) ?? false }

    @Test("kill -9 of the embedded postmaster while the feed posts goals: serve restarts it; nothing lost")
    func aKilledPostmaster() async throws {
        try await FaultBed.withEmbeddedServe { bed, serve, url in
            for game in FaultBed.games { try await bed.post(url, [FaultBed.event(game, seq: 1, player: "\(game)-Saka", home: 1)]) }
            try await eventually("the first goals are delivered") { await Self.caughtUp(bed, home: 1) }

            for game in FaultBed.games { try await bed.post(url, [FaultBed.event(game, seq: 2, player: "\(game)-Havertz", home: 2)]) }
            let killedAt = Date().timeIntervalSince1970
            #expect(kill(try Self.postmaster(bed), SIGKILL) == 0)
            // The feed goes on, retrying each POST through the outage.
            for seq in 3...4 {
                for game in FaultBed.games {
                    try await bed.postUntilAccepted(url, [FaultBed.event(game, seq: seq, player: "\(game)-Player\(seq)", home: seq)])
                }
            }
            try await eventually("every channel shows its newest state") { await Self.caughtUp(bed, home: 4) }
            let verdicts = try FaultBed.games.map { game in
                try bed.verdict(game, home: 4, players: ["\(game)-Saka", "\(game)-Havertz", "\(game)-Player3", "\(game)-Player4"])
            }
            for verdict in verdicts {
                #expect(verdict.newestStateShown && verdict.alertsLost.isEmpty && verdict.inOrder, "\(verdict)")
            }
            let log = serve.errorOutput + serve.output
            #expect(log.contains("the embedded Postgres stopped; restarting it"), "\(log)")
            #expect(log.contains("the postmaster is gone and its log says nothing (killed?)"), "\(log)")
            #expect(log.contains("the embedded Postgres runs again"), "\(log)")
            DeliveryFaultTests.report("kill -9 of serve's embedded postmaster", verdicts, recoveredFrom: killedAt)
            await bed.stop(serve)
        }
    }

    @Test("the embedded Postgres cannot start again: /healthz 503 past the limit, 200 and nothing lost once it can")
    func aPostmasterThatCannotComeBack() async throws {
        try await FaultBed.withEmbeddedServe(extra: ["SCORECAST_EMBEDDED_POSTGRES_RECOVERY_SECONDS": "1"]) { bed, serve, url in
            for game in FaultBed.games { try await bed.post(url, [FaultBed.event(game, seq: 1, player: "\(game)-Saka", home: 1)]) }
            try await eventually("the first goals are delivered") { await Self.caughtUp(bed, home: 1) }
            #expect(try await TestClient.live(url).get("/healthz").status == 200)

            // The server's user can no longer enter its data folder: every restart fails.
            let data = Self.dataFolder(bed).path
            #expect(chmod(data, 0) == 0)
            #expect(kill(try Self.postmaster(bed), SIGKILL) == 0)
            var body = ""
            try await eventually("/healthz answers 503") {
                let answer = try await TestClient.live(url).get("/healthz")
                body = String(decoding: answer.body, as: UTF8.self)
                return answer.status == 503
            }
            #expect(body.contains("the embedded Postgres has been down for"), "\(body)")
            #expect(serve.errorOutput.contains("restarting the embedded Postgres failed; trying again"), "\(serve.errorOutput)")

            #expect(chmod(data, 0o700) == 0)
            let fixedAt = Date().timeIntervalSince1970
            try await eventually("/healthz answers 200 again") { try await TestClient.live(url).get("/healthz").status == 200 }
            for game in FaultBed.games {
                try await bed.postUntilAccepted(url, [FaultBed.event(game, seq: 2, player: "\(game)-Havertz", home: 2)])
            }
            try await eventually("every channel shows its newest state") { await Self.caughtUp(bed, home: 2) }
            let verdicts = try FaultBed.games.map { game in try bed.verdict(game, home: 2, players: ["\(game)-Saka", "\(game)-Havertz"]) }
            for verdict in verdicts {
                #expect(verdict.newestStateShown && verdict.alertsLost.isEmpty && verdict.duplicates == 0 && verdict.inOrder, "\(verdict)")
            }
            DeliveryFaultTests.report("embedded postmaster killed and unable to start until fixed", verdicts, recoveredFrom: fixedAt)
            await bed.stop(serve)
        }
    }

    @Test("the embedded Postgres' disk fills up: serve says how much room it needs, and once there is room restarts it; nothing lost",
          .enabled(if: getuid() == 0, "mounts a small tmpfs"))
    func aFullDisk() async throws {
        let disk = try SmallDisk(megabytes: 200)
        defer { disk.remove() }
        try await FaultBed.withEmbeddedServe(stateIn: disk.url) { bed, serve, url in
            for game in FaultBed.games { try await bed.post(url, [FaultBed.event(game, seq: 1, player: "\(game)-Saka", home: 1)]) }
            try await eventually("the first goals are delivered") { await Self.caughtUp(bed, home: 1) }

            // Fill the disk, then make the server start a new WAL segment: it cannot create one,
            // and a failed WAL write is a PANIC (then a crash recovery that has no room either).
            let filler = try disk.fill()
            _ = try? await bed.e2e.pool.query("SELECT pg_switch_wal()")
            // Refused or not (the database may already be down): the goals are posted again below.
            for game in FaultBed.games {
                let goal = FaultBed.event(game, seq: 2, player: "\(game)-Player2", home: 2)
                _ = try? await ScorecastProcess.run(
                    ["events", "send", "--url", url, "--json", #"{"events": [\#(goal)]}"#], environment: ["SCORECAST_API_KEY": bed.key])
            }
            try await eventually("serve reports the full disk") {
                serve.errorOutput.contains("disk full: ") && serve.errorOutput.contains("the server needs at least 64.0 MiB to recover")
            }

            disk.free(filler)
            let freedAt = Date().timeIntervalSince1970
            for seq in 2...3 {
                for game in FaultBed.games {
                    try await bed.postUntilAccepted(url, [FaultBed.event(game, seq: seq, player: "\(game)-Player\(seq)", home: seq)])
                }
            }
            try await eventually("every channel shows its newest state") { await Self.caughtUp(bed, home: 3) }
            let verdicts = try FaultBed.games.map { game in
                try bed.verdict(game, home: 3, players: ["\(game)-Saka", "\(game)-Player2", "\(game)-Player3"])
            }
            for verdict in verdicts {
                #expect(verdict.newestStateShown && verdict.alertsLost.isEmpty && verdict.inOrder, "\(verdict)")
            }
            #expect(serve.errorOutput.contains("the embedded Postgres runs again"), "\(serve.errorOutput)")
            DeliveryFaultTests.report("embedded Postgres' disk full, then freed", verdicts, recoveredFrom: freedAt)
            await bed.stop(serve)
        }
    }
}
