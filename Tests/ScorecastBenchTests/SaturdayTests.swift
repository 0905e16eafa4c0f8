import DemoMatch
import Foundation
import ScorecastCore
import Testing
@testable import scorecast_bench

@Suite("part 7: a Saturday of matches")
struct SaturdayTests {
    @Test("every match replays the pattern from its own kick-off, spread evenly, compressed by the speed")
    func schedulesMatches() throws {
        let schedule = try SaturdaySchedule(pattern: [0, 10, 100], matches: 3, speed: 10, kickoffSpreadSeconds: 40)
        // Kick-offs at 0, 20 and 40 real seconds; every time divided by 10.
        let byMatch = Dictionary(grouping: schedule.entries, by: \.match).mapValues { $0.map(\.due) }
        #expect(byMatch[0] == [0, 1, 10])
        #expect(byMatch[1] == [2, 3, 12])
        #expect(byMatch[2] == [4, 5, 14])
        #expect(schedule.entries.map(\.due) == [0, 1, 2, 3, 4, 5, 10, 12, 14])
        #expect(schedule.entries.map(\.event) == [0, 1, 0, 1, 0, 1, 2, 2, 2])
        #expect(schedule.realSeconds == 140)
        #expect(schedule.compressedSeconds == 14)
        #expect(schedule.peakEventsPerSecond == 1)
        #expect(abs(schedule.averageEventsPerSecond - 9.0 / 14) < 1e-12)
    }

    @Test("events due together stay in match then event order; the busiest second counts them")
    func ordersTies() throws {
        let schedule = try SaturdaySchedule(pattern: [5, 5], matches: 2, speed: 1, kickoffSpreadSeconds: 0)
        #expect(schedule.entries == [
            .init(match: 0, event: 0, due: 5), .init(match: 0, event: 1, due: 5),
            .init(match: 1, event: 0, due: 5), .init(match: 1, event: 1, due: 5),
        ])
        #expect(schedule.peakEventsPerSecond == 4)
        #expect(SaturdaySchedule.kickoffOffset(match: 0, of: 1, spread: 300) == 0)
        #expect(SaturdaySchedule.kickoffOffset(match: 299, of: 300, spread: 300) == 300)
    }

    @Test("a bad count, speed, spread or pattern is refused with the reason")
    func refusesBadInput() {
        #expect(throws: BenchError.self) { try SaturdaySchedule(pattern: [0], matches: 0, speed: 1, kickoffSpreadSeconds: 0) }
        #expect(throws: BenchError.self) { try SaturdaySchedule(pattern: [0], matches: 1, speed: 0.5, kickoffSpreadSeconds: 0) }
        #expect(throws: BenchError.self) { try SaturdaySchedule(pattern: [0], matches: 1, speed: .nan, kickoffSpreadSeconds: 0) }
        #expect(throws: BenchError.self) { try SaturdaySchedule(pattern: [0], matches: 1, speed: 1, kickoffSpreadSeconds: -1) }
        #expect(throws: BenchError.self) { try SaturdaySchedule(pattern: [10, 5], matches: 1, speed: 1, kickoffSpreadSeconds: 0) }
        #expect(throws: BenchError.self) { try SaturdaySchedule(pattern: [], matches: 1, speed: 1, kickoffSpreadSeconds: 0) }
    }

    @Test("the bundled match is the pattern: its 72 events, bursts at goals, and a quiet spell at half-time")
    func bundledPattern() throws {
        let feed = try SaturdayFeed(games: ["bench-g00000", "bench-g00001"], runTag: "r7", seqBase: 7_000_000, speed: 30)
        let pattern = feed.pattern
        #expect(pattern.count == 72)
        #expect(pattern.first == 0)
        #expect(pattern.last == DemoFeed.matchLength.seconds)
        let schedule = try SaturdaySchedule(pattern: pattern, matches: 300, speed: 30, kickoffSpreadSeconds: 300)
        #expect(schedule.entries.count == 300 * 72)
        #expect(schedule.compressedSeconds == (300 + DemoFeed.matchLength.seconds) / 30)
        #expect(zip(schedule.entries, schedule.entries.dropFirst()).allSatisfy { $0.due <= $1.due })
        // The longest quiet spell is half-time's: its statistics 40 s after the whistle, then
        // nothing until the second half 15 minutes after the whistle.
        let longestGap = zip(pattern, pattern.dropFirst()).map { $1 - $0 }.max() ?? 0
        #expect(longestGap == 15 * 60 - 40)
    }

    @Test("each match's events carry its own game, run-unique ids and seqs above earlier runs', and pass ingest validation")
    func rewritesEvents() throws {
        let feed = try SaturdayFeed(games: ["bench-g00000", "bench-g00001"], runTag: "r7", seqBase: 7_000_000, speed: 30)
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let body = try feed.body(SaturdaySchedule.Entry(match: 1, event: 4, due: 0), now: now)
        let event = try #require(try FeedEventValidator().events(fromBody: body, now: now).first)
        #expect(event.game == "bench-g00001")
        #expect(event.seq == 7_000_005)
        #expect(event.id == "r7-bench-g00001-7000005")
        let kinds = try (0..<feed.events.count).map { index in
            try #require(try FeedEventValidator().events(fromBody: feed.body(.init(match: 0, event: index, due: 0), now: now), now: now).first)
        }
        #expect(kinds.count == 72)
        #expect(Set(kinds.map(\.id)).count == 72)
        // The announcement (event 0) promises kick-off 2 minutes of play ahead: 4 s at 30×.
        let announcement = String(decoding: try feed.body(.init(match: 0, event: 0, due: 0), now: now), as: UTF8.self)
        #expect(announcement.contains(#""kickoffAt":"\#(RFC3339.format(now.addingTimeInterval(4)))""#))
    }

    @Test("results.md names the compression beside the figures, and every figure is the run's")
    func rendersSection() {
        let alerting = Percentiles(count: 300, p50: 4.5, p90: 9, p95: 12.25, p99: 31, max: 88)
        let all = Percentiles(count: 4000, p50: 900, p90: 1900, p95: 1950, p99: 2010, max: 2500)
        let run = EndToEndRun(
            targetEventsPerSecond: 90, postedEventsPerSecond: 89.5, eventsAccepted: 21_600, ingestFailures: 0, seconds: 240,
            broadcastsPerSecond: 300, broadcasts: 72_000, failedDeliveries: 3,
            ingestLatencyMs: Percentiles(count: 21_600, p50: 1.75, p90: 3, p95: 4, p99: 12.5, max: 30), ingestToSendMs: all,
            coalescedShare: nil, backlogAtEnd: 0, sustained: true,
            cpu: [ProcessCPU(name: "serve0 (api,worker,poller)", cpuSeconds: 60, coreShare: 0.25)], workerProcesses: 1,
            broadcastsPerServerCPUSecond: 1200, ingestToSendAlertingMs: alerting, drainSeconds: 0.4, maxPostLagMs: 3,
            firstIngestFailure: nil, coalesced: 17, downgraded: 2,
            alertingClaimWaitMs: Percentiles(count: 300, p50: 2.25, p90: 5, p95: 6, p99: 19.5, max: 40),
            alertingAPNsMs: Percentiles(count: 300, p50: 1.5, p90: 2, p95: 2.5, p99: 7.75, max: 9))
        let report = SaturdayReport(matches: 300, eventsPerMatch: 72, speed: 30, kickoffSpreadSeconds: 300, realSeconds: 7200,
                                    compressedSeconds: 240, peakEventsPerSecond: 41, averageEventsPerSecond: 90,
                                    channelsPerMatch: 4, run: run)
        let text = MarkdownReport.saturdaySection(report).joined(separator: "\n")
        #expect(text.contains("## 7. Saturday: 300 matches replaying the bundled match"))
        #expect(text.contains("compressed 30×: 120 min of real time in 240 s, so every quiet spell is 30× shorter"))
        #expect(text.contains("| speed (time compression) | 30× (1 = real pace) |"))
        #expect(text.contains("| alerting ingest→send p50 / p95 / p99 / max | 4.5 ms / 12.2 ms / 31.0 ms / 88.0 ms (300 sends) |"))
        #expect(text.contains("| of which ingest→claim (ingest, then the wait for a worker), alerting p50 / p99 | 2.2 ms / 19.5 ms (300 sends) |"))
        #expect(text.contains("| ingest: the feed's POST, answered at commit, every event p50 / p99 | 1.8 ms / 12.5 ms (21600 events) |"))
        #expect(text.contains("| of which APNs round trip, alerting p50 / p99 | 1.5 ms / 7.8 ms (300 sends) |"))
        #expect(text.contains("| all sends ingest→send p50 / p99 | 900.0 ms / 2010.0 ms (4000 sends) |"))
        #expect(text.contains("| events posted (accepted, failed) | 21600, 0 |"))
        #expect(text.contains("| events/s: average, busiest second | 90.0, 41 |"))
        #expect(text.contains("| broadcasts acknowledged | 72000 |"))
        #expect(text.contains("| coalesced, downgraded, failed | 17, 2, 3 |"))
        #expect(text.contains("| broadcasts per server CPU-second (serve + Postgres) | 1200 |"))
        var bench = BenchReport(started: "", cores: 2, mode: "quick", command: "", tools: [:], ceiling: nil, peer: nil, endToEnd: [],
                                endToEndSetup: [:], memory: nil, scaling: [], profiles: [:], skipped: [:])
        #expect(!MarkdownReport.render(bench).contains("## 7."))
        bench.saturday = report
        #expect(MarkdownReport.render(bench).contains(text))
    }

    @Test("the options: defaults by mode, and a speed below real pace is refused")
    func options() throws {
        let full = try BenchOptions([])
        #expect(full.parts.contains(7) && full.saturdayMatchCount == 300 && full.saturdaySpeedFactor == 30)
        let quick = try BenchOptions(["--quick", "--parts", "7", "--saturday-speed", "120", "--saturday-matches", "10"])
        #expect(quick.parts == [7] && quick.saturdayMatchCount == 10 && quick.saturdaySpeedFactor == 120)
        #expect(try BenchOptions(["--quick"]).saturdaySpeedFactor == 60)
        #expect(throws: BenchError.self) { try BenchOptions(["--saturday-speed", "0.5"]) }
        #expect(throws: BenchError.self) { try BenchOptions(["--parts", "8"]) }
    }
}
