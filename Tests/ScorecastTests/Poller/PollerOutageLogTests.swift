import Clocks
import Foundation
import Lifecycle
import ScorecastLogging
@testable import Server
import Synchronization
import TestSupport
import Testing

/// A duty whose every round fails for ten games of one app (as `ensure` does while APNs is
/// down for the app) until the test lets it work again.
final class OutageDuty: PollerDuty {
    static let cause = "creating channels in com.example.scores (sandbox)"
    let name = "ensure"
    let interval: Duration = .seconds(30)
    private let state = Mutex((down: true, rounds: 0))

    var rounds: Int { state.withLock { $0.rounds } }
    func recover() { state.withLock { $0.down = false } }

    func run(at now: Date) async throws -> DutyReport {
        let down = state.withLock { state in
            state.rounds += 1
            return state.down
        }
        var report = DutyReport(counts: ["games": 10])
        if down {
            report.failures = (1...10).map { game in
                DutyFailure(cause: Self.cause, message: "no channel for a game in com.example.scores (sandbox): APNs answered 503", fields: ["game": "g\(game)"])
            }
        } else {
            report.recovered = [Self.cause]
        }
        return report
    }
}

/// An outage that fails every game of an app each round is logged when it starts, summarised
/// while it lasts and logged when it ends, on the poller's (manual) clock.
@Suite struct PollerOutageLogTests {
    @Test func aHundredFailuresOfOneCauseAreSevenLinesNotAHundred() async throws {
        try await PollerDatabase.with { db in
            let sink = MemorySink()
            let logger = Logger(label: "poller-test", level: .notice, sink: sink)
            let clock = ManualServiceClock(pollerTestNow)
            let duty = OutageDuty()
            let poller = Poller(
                duties: [duty], lock: LeaderLock(configuration: db.configuration, logger: PollerDatabase.logger),
                clock: clock, leaderCheckInterval: .seconds(600), logger: logger)
            let shutdown = ShutdownSignal()
            async let running: Void = poller.run(until: shutdown)
            let outageLines = { sink.lines.filter { $0.contains("com.example.scores") } }

            // Ten rounds 30 s apart, ten games each: 100 identical failures.
            try await eventually("the duty runs its first round") { duty.rounds == 1 }
            for round in 2...11 {
                try await eventually("the duty loop and the lock watcher sleep") { clock.sleeperCount >= 2 }
                if round == 11 { duty.recover() }
                clock.advance(by: .seconds(30))
                try await eventually("the duty runs round \(round)") { duty.rounds == round }
            }
            try await eventually("the outage log says the duty works again") { outageLines().contains { $0.contains("works again") } }
            let lines = outageLines()
            // The start, a summary per minute of the outage (99 repeats in all), the end.
            #expect(lines.count == 7, "\(lines.joined(separator: "\n"))")
            #expect(lines.first?.contains("no channel for a game in com.example.scores (sandbox): APNs answered 503") == true)
            #expect(lines.first?.contains("more in the last") == false)
            let summaries = lines.dropFirst().dropLast()
            #expect(summaries.map { $0.contains("(19 more in the last 60 s)") } == [true, false, false, false, false])
            #expect(summaries.filter { $0.contains("(20 more in the last 60 s)") }.count == 4)
            #expect(summaries.allSatisfy { $0.contains("g1,g10,g2,g3,g4,g5,g6,g7,g8,g9") })
            #expect(lines.last?.contains("creating channels in com.example.scores (sandbox) works again") == true)

            shutdown.trigger()
            try await running
        }
    }
}
