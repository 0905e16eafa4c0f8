import APNsSimulator
import Foundation
import Testing
import TestSupport

/// The guarantee when APNs misbehaves at the connection level, through the built binary and
/// the simulator's fault API: a black hole (connections and streams accepted, never answered)
/// and a GOAWAY after every 100 streams.
@Suite("Fault suite: APNs black hole and GOAWAY", .serialized)
struct APNsFaultTests {
    @Test("APNs black hole 15 s: sends time out, nothing is lost, back within seconds of APNs answering")
    func aBlackHole() async throws {
        try await FaultBed.with { bed in
            let (server, started) = try await bed.serve()
            let url = try #require(started)
            for game in FaultBed.games {
                try await bed.post(url, [FaultBed.event(game, seq: 1, player: "\(game)-Saka", home: 1)])
            }
            try await eventually("goal 1 is announced everywhere") { try await bed.caughtUp(home: 1) }
            let began = ContinuousClock.now
            try bed.e2e.simulator.setFaults(SimulatorFaults(blackHole: true))
            for game in FaultBed.games {
                try await bed.post(url, [FaultBed.event(game, seq: 2, player: "\(game)-Havertz", home: 2)])
            }
            // Halfway through, the feed goes on: a card and a goal.
            try await Task.sleep(until: began + .seconds(7))
            for game in FaultBed.games {
                try await bed.post(url, [
                    FaultBed.event(game, seq: 3, kind: "card", player: "\(game)-Rice", home: 2, alert: true),
                    FaultBed.event(game, seq: 4, player: "\(game)-Odegaard", home: 3),
                ])
            }
            try await Task.sleep(until: began + .seconds(15))
            let unanswered = bed.e2e.simulator.receivedRequests().filter { $0.port == "send" && $0.status == nil }.count
            let heldBack = try await bed.heldBackPastHangDeadline()
            try bed.e2e.simulator.setFaults(.none)
            let healed = Date().timeIntervalSince1970
            try await eventually("every channel shows its newest state") { try await bed.caughtUp(home: 3) }
            let verdicts = try FaultBed.games.map { game in
                try bed.verdict(game, home: 3, players: ["\(game)-Saka", "\(game)-Havertz", "\(game)-Rice", "\(game)-Odegaard"])
            }
            #expect(unanswered >= FaultBed.games.count, "the black hole swallowed the sends (\(unanswered) unanswered)")
            for verdict in verdicts {
                #expect(verdict.newestStateShown && verdict.alertsLost.isEmpty && verdict.duplicates == 0 && verdict.inOrder, "\(verdict)")
            }
            // Not judged: no row was held back past the hang deadline in any run here (the rows
            // wait for the breaker's probe, not for a spent-retries backoff).
            print("HELD BACK | APNs black hole | \(heldBack) rows past the hang deadline when the fault cleared")
            #expect(bed.failedSends(since: healed).isEmpty, "no send failed once APNs answered: \(bed.failedSends(since: healed).count)")
            DeliveryFaultTests.report("APNs black hole 15 s (request timeout 3 s)", verdicts, recoveredFrom: healed)
            await bed.stop(server)
        }
    }

    @Test("GOAWAY every 100 streams: the client reconnects and resends what was not processed; nothing lost or repeated")
    func aGoAwayEveryHundredStreams() async throws {
        try await FaultBed.with { bed in
            try bed.e2e.simulator.setFaults(SimulatorFaults(goAwayAfterStreams: 100))
            let (server, started) = try await bed.serve()
            let url = try #require(started)
            // 150 alerts (a feed catching up: each game's 50 goals in batches of 10), well over 100 streams.
            let goals = 50
            for batch in stride(from: 1, through: goals, by: 10) {
                for game in FaultBed.games {
                    try await bed.post(url, (batch..<batch + 10).map { FaultBed.event(game, seq: $0, player: "\(game)-P\($0)", home: $0) })
                }
            }
            try await eventually("every channel shows its newest state") { try await bed.caughtUp(home: goals) }
            let verdicts = try FaultBed.games.map { game in
                try bed.verdict(game, home: goals, players: (1...goals).map { "\(game)-P\($0)" })
            }
            for verdict in verdicts {
                #expect(verdict.newestStateShown && verdict.alertsLost.isEmpty && verdict.duplicates == 0 && verdict.inOrder, "\(verdict)")
            }
            let sends = bed.e2e.simulator.receivedRequests().filter { $0.port == "send" }
            let perConnection = Dictionary(grouping: sends.filter { $0.status != nil }, by: \.connection).mapValues(\.count)
            #expect(perConnection.count >= 2, "GOAWAY made the client reconnect: \(perConnection)")
            #expect(perConnection.values.allSatisfy { $0 <= 100 }, "no connection answered more than 100 streams: \(perConnection)")
            DeliveryFaultTests.report("GOAWAY every 100 streams (\(sends.count) streams)", verdicts, recoveredFrom: nil)
            await bed.stop(server)
        }
    }
}
