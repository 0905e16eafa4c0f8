import APNsSimulator
import Foundation
import Postgres
import Testing
import TestSupport

/// The delivery guarantee under faults, through the built binary: once APNs (and Postgres)
/// answer again, every channel's last accepted payload carries its game's newest state, and
/// every alerting event was announced — exactly once, or at least once after a crash. Each
/// test prints one row of the Reliability table of docs/architecture.md.
@Suite("Fault suite: the delivery guarantee", .serialized)
struct DeliveryFaultTests {
    static func report(_ fault: String, _ verdicts: [FaultBed.Verdict], recoveredFrom: Double?) {
        let lost = verdicts.filter { !$0.newestStateShown }.count
        let alertsLost = verdicts.reduce(0) { $0 + $1.alertsLost.count }
        let duplicates = verdicts.reduce(0) { $0 + $1.duplicates }
        let recovery = recoveredFrom.map { start in String(format: "%.1f", (verdicts.map(\.lastAcceptedAt).max() ?? start) - start) } ?? "–"
        print("RELIABILITY | \(fault) | \(lost) | \(alertsLost) | \(duplicates) | \(recovery) |")
    }

    /// What an outage may cost at most with the breaker working, whatever the machine's speed:
    /// every update's attempt budget (3, `FaultBed.settings`), then one probe per open interval
    /// (at least a second, `CircuitBreaker.Policy`) over the span the failures actually took,
    /// read from the simulator's clock, so a slow machine that stretches the outage raises the
    /// bound with it.
    static func mostRequestsAnOutageMayCost(_ failureTimes: [Double], updates: Int) -> Int {
        guard let first = failureTimes.min(), let last = failureTimes.max() else { return 0 }
        return updates * 3 + Int((last - first).rounded(.up)) + 1
    }

    @Test("two goals and a card in one POST: three alerts in event order, each with the newest state")
    func aBurstInOnePost() async throws {
        try await FaultBed.with { bed in
            let (server, url) = try await bed.serve()
            for game in FaultBed.games {
                try await bed.post(try #require(url), [
                    FaultBed.event(game, seq: 1, player: "\(game)-Saka", home: 1),
                    FaultBed.event(game, seq: 2, kind: "card", player: "\(game)-Rice", home: 1, alert: true),
                    FaultBed.event(game, seq: 3, player: "\(game)-Odegaard", home: 2),
                ])
            }
            try await eventually("every alert is announced") {
                FaultBed.games.allSatisfy { bed.accepted($0).count >= 3 }
            }
            let verdicts = try FaultBed.games.map { game in
                try bed.verdict(game, home: 2, players: ["\(game)-Saka", "\(game)-Rice", "\(game)-Odegaard"])
            }
            for verdict in verdicts {
                #expect(verdict.newestStateShown && verdict.alertsLost.isEmpty && verdict.duplicates == 0 && verdict.inOrder, "\(verdict)")
            }
            Self.report("two goals and a card in one POST", verdicts, recoveredFrom: nil)
            await bed.stop(server)
        }
    }

    @Test("APNs answers 503 for longer than the attempt budget, then recovers: nothing lost, back within seconds")
    func aLongServiceUnavailable() async throws {
        try await FaultBed.with { bed in
            let (server, url) = try await bed.serve()
            try bed.e2e.simulator.setFaults(SimulatorFaults(failPercent: 100, failStatus: 503))
            for game in FaultBed.games {
                try await bed.post(try #require(url), [FaultBed.event(game, seq: 1, player: "\(game)-Saka", home: 1)])
            }
            // The attempt budget (3) runs out while APNs keeps failing...
            try await eventually("an update gives up its attempts") {
                try await bed.e2e.pool.query("SELECT 1 FROM deliveries WHERE outcome = 'failed'").count >= 1
            }
            // ...and the feed goes on.
            for game in FaultBed.games {
                try await bed.post(try #require(url), [FaultBed.event(game, seq: 2, player: "\(game)-Havertz", home: 2)])
            }
            // Until a row has given up and waits past the hang deadline, or recovery would prove
            // nothing about the breaker (a condition, not a fixed wait: a loaded machine too).
            try await eventually("a row is held back past the hang deadline") { try await bed.heldBackPastHangDeadline() >= 1 }
            let failedDuringOutage = bed.e2e.simulator.receivedRequests().filter { $0.port == "send" && $0.status == 503 }
            let heldBack = try await bed.heldBackPastHangDeadline()
            let outageCost = Self.mostRequestsAnOutageMayCost(failedDuringOutage.map(\.time), updates: 2 * FaultBed.games.count)
            try bed.e2e.simulator.setFaults(.none)
            let healed = Date().timeIntervalSince1970
            try await eventually("every channel shows its newest state") { try await bed.caughtUp(home: 2) }
            let verdicts = try FaultBed.games.map { game in
                try bed.verdict(game, home: 2, players: ["\(game)-Saka", "\(game)-Havertz"])
            }
            for verdict in verdicts {
                #expect(verdict.newestStateShown && verdict.alertsLost.isEmpty && verdict.duplicates == 0 && verdict.inOrder, "\(verdict)")
            }
            // A row given up waits the longest backoff (10 minutes here, past the hang deadline):
            // catching up before that deadline shows the breaker's release brought it back.
            print("HELD BACK | APNs 503 | \(heldBack) rows past the hang deadline when the fault cleared")
            print("OUTAGE COST | APNs 503 | \(failedDuringOutage.count) failed sends during the outage (at most \(outageCost))")
            #expect(bed.failedSends(since: healed).isEmpty, "no send failed once APNs answered: \(bed.failedSends(since: healed).count)")
            #expect(failedDuringOutage.count <= outageCost, "the outage cost \(failedDuringOutage.count) requests, more than each update's attempts and one probe a second (\(outageCost))")
            Self.report("APNs 503 beyond the attempt budget (3), then healthy", verdicts, recoveredFrom: healed)
            await bed.stop(server)
        }
    }

    @Test("429 with Retry-After 3600: the channel goes to priority 5 and keeps receiving state and alerts")
    func aThrottleWithAnHourLongRetryAfter() async throws {
        try await FaultBed.with { bed in
            try bed.e2e.simulator.setBudget(perHour: 1)
            try bed.e2e.simulator.setRetryAfter(.seconds(3600))
            let (server, url) = try await bed.serve()
            for seq in 1...3 {
                for game in FaultBed.games {
                    try await bed.post(try #require(url), [FaultBed.event(game, seq: seq, player: "\(game)-P\(seq)", home: seq)])
                }
                try await eventually("goal \(seq) is announced everywhere") {
                    try FaultBed.games.allSatisfy { try bed.verdict($0, home: seq, players: []).newestStateShown }
                }
            }
            let verdicts = try FaultBed.games.map { game in
                try bed.verdict(game, home: 3, players: (1...3).map { "\(game)-P\($0)" })
            }
            for verdict in verdicts {
                #expect(verdict.newestStateShown && verdict.alertsLost.isEmpty && verdict.duplicates == 0 && verdict.inOrder, "\(verdict)")
            }
            let throttled = bed.e2e.simulator.receivedRequests().filter { $0.port == "send" && $0.status == 429 }
            #expect(!throttled.isEmpty, "the simulator's budget was reached")
            Self.report("429 TooManyRequests with Retry-After 3600", verdicts, recoveredFrom: nil)
            await bed.stop(server)
        }
    }

    @Test("SIGKILL of serve mid-send: another serve sends everything after the lease; at least once")
    func aKillMidSend() async throws {
        try await FaultBed.with { bed in
            try bed.e2e.simulator.setFaults(SimulatorFaults(blackHole: true))
            let (doomed, url) = try await bed.serve()
            for game in FaultBed.games {
                try await bed.post(try #require(url), [
                    FaultBed.event(game, seq: 1, player: "\(game)-Saka", home: 1),
                    FaultBed.event(game, seq: 2, player: "\(game)-Havertz", home: 2),
                ])
            }
            try await eventually("the sends are in flight") {
                bed.e2e.simulator.receivedRequests().filter { $0.port == "send" }.count >= FaultBed.games.count
            }
            doomed.signal(SIGKILL)
            #expect(await doomed.waitForExit(timeout: .seconds(10)) != nil)
            // Rows leased by the dead process: nothing but the lease rescue frees them.
            let leased = try await bed.e2e.pool.query("SELECT 1 FROM outbox WHERE lease_owner IS NOT NULL").count
            try bed.e2e.simulator.setFaults(.none)
            let restarted = Date().timeIntervalSince1970
            let (rescuer, _) = try await bed.serve(roles: "worker,poller")
            try await eventually("every channel shows its newest state") { try await bed.caughtUp(home: 2) }
            let verdicts = try FaultBed.games.map { game in
                try bed.verdict(game, home: 2, players: ["\(game)-Saka", "\(game)-Havertz"])
            }
            for verdict in verdicts {
                // At least once: the black-holed sends never reached a phone, so none repeats here.
                #expect(verdict.newestStateShown && verdict.alertsLost.isEmpty && verdict.inOrder, "\(verdict)")
            }
            #expect(leased >= 1, "rows were leased by the killed serve (\(leased))")
            // The rescue re-sent each row: every send after the restart accepted, each alert once.
            #expect(bed.failedSends(since: restarted).isEmpty, "no send failed after the restart: \(bed.failedSends(since: restarted).count)")
            for game in FaultBed.games {
                #expect(bed.sends(game, since: restarted).count == 2, "\(game): one send per alert after the restart")
            }
            Self.report("SIGKILL of serve mid-send (lease 2 s)", verdicts, recoveredFrom: restarted)
            await bed.stop(rescuer)
        }
    }
}
