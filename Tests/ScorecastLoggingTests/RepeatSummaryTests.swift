import Clocks
import Foundation
import ScorecastLogging
import Synchronization
import Testing

/// Repeated lines are summarised per cause per interval, on an injected clock.
@Suite struct RepeatSummaryTests {
    private let start = Date(timeIntervalSince1970: 1_000_000)
    private func line(_ message: String, _ fields: [String: String] = [:]) -> RepeatSummary.Line {
        RepeatSummary.Line(level: .warning, message: message, fields: fields)
    }

    @Test func theFirstLineOfACauseIsWrittenAndItsRepeatsAreCountedIntoOneSummary() {
        var summary = RepeatSummary(interval: 10)
        #expect(summary.record(cause: "db", line("no database", ["error": "e0"]), now: start) == [line("no database", ["error": "e0"])])
        for i in 1...2_900 {
            #expect(summary.record(cause: "db", line("no database", ["error": "e\(i)"]), now: start.addingTimeInterval(Double(i) / 1000)).isEmpty)
        }
        #expect(summary.flush(now: start.addingTimeInterval(9.9)).isEmpty)
        #expect(summary.flush(now: start.addingTimeInterval(10)) == [
            line("no database (2900 more in the last 10 s)", ["error": "e2900", "repeated": "2900"])
        ])
        // The cause starts afresh: its next line is written at once.
        #expect(summary.record(cause: "db", line("no database"), now: start.addingTimeInterval(11)) == [line("no database")])
    }

    @Test func causesAreCountedApartAndALineThatDidNotRepeatHasNoSummary() {
        var summary = RepeatSummary(interval: 10)
        #expect(summary.record(cause: "claim", line("claim failed"), now: start).count == 1)
        #expect(summary.record(cause: "duty:expiry", line("duty failed"), now: start.addingTimeInterval(1)).count == 1)
        #expect(summary.record(cause: "claim", line("claim failed"), now: start.addingTimeInterval(2)).isEmpty)
        #expect(summary.nextFlush == start.addingTimeInterval(10))
        // A line after the interval brings the summaries that are due, then itself.
        let lines = summary.record(cause: "ingest", line("ingest failed"), now: start.addingTimeInterval(12))
        #expect(lines.map(\.message) == ["claim failed (1 more in the last 12 s)", "ingest failed"])
        #expect(summary.nextFlush == start.addingTimeInterval(22))
    }

    @Test func gatheredFieldsListEveryValueSeenOthersTheLast() {
        // APNs trouble: which apps a storm of 429s hit, not only the last one.
        var summary = RepeatSummary(interval: 60)
        let first = line("APNs trouble: TooManyRequests", ["cause": "TooManyRequests", "app": "com.b"])
        #expect(summary.record(cause: "429", first, now: start, gathering: ["app"]) == [first])
        for second in 1...36 {
            let app = second % 2 == 0 ? "com.b" : "com.a"
            let repeated = line("APNs trouble: TooManyRequests", ["cause": "TooManyRequests", "app": app])
            #expect(summary.record(cause: "429", repeated, now: start.addingTimeInterval(Double(second)), gathering: ["app"]).isEmpty)
        }
        #expect(summary.flush(now: start.addingTimeInterval(60)) == [
            line("APNs trouble: TooManyRequests (36 more in the last 60 s)", ["cause": "TooManyRequests", "app": "com.a,com.b", "repeated": "36"])
        ])
    }

    @Test func aRepeatLogWritesSummariesOnItsClockAndStaysQuietBetween() {
        let sink = MemorySink()
        let clock = ManualServiceClock(start)
        let log = RepeatLog(logger: Logger(label: "worker", sink: sink), interval: 60, clock: clock)
        for second in 0..<20 {
            if second > 0 { clock.advance(by: .seconds(1)) }
            for _ in 0..<145 { log.warning(cause: "claim", "claiming outbox rows failed; retrying") }
        }
        #expect(sink.lines.count == 1)
        clock.advance(by: .seconds(41))
        log.flush()
        #expect(sink.lines.count == 2)
        #expect(sink.lines.last?.contains("claiming outbox rows failed; retrying (2899 more in the last 60 s)") == true)
    }

    @Test func linesBelowTheLoggersLevelAreNotCounted() {
        let sink = MemorySink()
        let log = RepeatLog(logger: Logger(label: "x", level: .error, sink: sink), interval: 60, clock: ManualServiceClock(start))
        log.warning("ignored")
        log.flush()
        #expect(sink.lines.isEmpty)
    }
}

/// A cause logged until it recovers: written once, then only summarised, then its end.
@Suite struct RepeatSummaryRecoveryTests {
    private let start = Date(timeIntervalSince1970: 1_000_000)
    private func line(_ message: String, _ fields: [String: String] = [:]) -> RepeatSummary.Line {
        RepeatSummary.Line(level: .warning, message: message, fields: fields)
    }

    @Test func anOutageIsWrittenOnceSummarisedEachIntervalAndEndedByItsRecovery() {
        var summary = RepeatSummary(interval: 60)
        var written: [RepeatSummary.Line] = []
        for failure in 0..<100 {  // one every 3 s for 300 s
            let now = start.addingTimeInterval(Double(failure) * 3)
            written += summary.record(cause: "apns", line("APNs down", ["game": "g\(failure % 4)"]), now: now, gathering: ["game"], untilRecovered: true)
        }
        let end = RepeatSummary.Line(level: .notice, message: "APNs works again")
        written += summary.recovered(cause: "apns", end, now: start.addingTimeInterval(300))
        #expect(written.map(\.message) == ["APNs down"] + Array(repeating: "APNs down (19 more in the last 60 s)", count: 1)
            + Array(repeating: "APNs down (20 more in the last 60 s)", count: 4) + ["APNs works again"])
        #expect(written.dropFirst().dropLast().allSatisfy { $0.fields["game"] == "g0,g1,g2,g3" })
        // Recovered once: a second recovery and an unrelated cause write nothing.
        #expect(summary.recovered(cause: "apns", end, now: start.addingTimeInterval(301)).isEmpty)
        #expect(summary.recovered(cause: "db", end, now: start.addingTimeInterval(301)).isEmpty)
        // The next outage is written at once again.
        #expect(summary.record(cause: "apns", line("APNs down"), now: start.addingTimeInterval(400), untilRecovered: true) == [line("APNs down")])
    }
}
