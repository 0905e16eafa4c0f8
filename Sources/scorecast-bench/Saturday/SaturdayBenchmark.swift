import Foundation
import ScorecastLogging

/// Part 7: `matches` matches replay the bundled match's events and timing through
/// `POST /v1/events` against a running `serve`, measured by part 3's runner.
struct SaturdayBenchmark {
    /// Matches (one game each, taken from the environment's games).
    let matches: Int
    /// Time compression.
    let speed: Double
    /// Real seconds over which the kick-offs are spread.
    let kickoffSpreadSeconds: Double
    let runner: EndToEndRunner
    let logger: Logger

    /// Replays the day against `serve`; `runTag` and `seqBase` keep its events apart from earlier runs'.
    func run(serve: ServeProcess, runTag: String, seqBase: Int, channelsPerMatch: Int) async throws -> SaturdayReport {
        let games = runner.environment.games
        guard games.count >= matches else {
            throw BenchError("a Saturday of \(matches) matches needs \(matches) games; the environment has \(games.count)")
        }
        let feed = try SaturdayFeed(games: Array(games.prefix(matches)), runTag: runTag, seqBase: seqBase, speed: speed)
        let schedule = try SaturdaySchedule(pattern: feed.pattern, matches: matches, speed: speed,
                                            kickoffSpreadSeconds: kickoffSpreadSeconds)
        logger.info("saturday", ["matches": String(matches), "speed": String(speed),
                                 "seconds": String(Int(schedule.compressedSeconds)), "events": String(schedule.entries.count)])
        let entries = schedule.entries
        let (run, _) = try await runner.run(targetRate: max(1, Int(schedule.averageEventsPerSecond.rounded())), serves: [serve]) { port in
            // A lane per 10 events/s at the peak keeps a burst on time at ~100 ms per request; bounded.
            PostSchedule(count: entries.count, seconds: schedule.compressedSeconds + 10,
                         lanes: max(16, min(128, schedule.peakEventsPerSecond / 10)),
                         apiKey: runner.environment.apiKey, port: port,
                         due: { entries[$0].due },
                         // An encoding failure posts an empty body: the 400 shows as an ingest failure.
                         body: { (try? feed.body(entries[$0], now: Date())) ?? [] })
        }
        return SaturdayReport(matches: matches, eventsPerMatch: feed.events.count, speed: speed,
                              kickoffSpreadSeconds: kickoffSpreadSeconds, realSeconds: schedule.realSeconds,
                              compressedSeconds: schedule.compressedSeconds, peakEventsPerSecond: schedule.peakEventsPerSecond,
                              averageEventsPerSecond: schedule.averageEventsPerSecond, channelsPerMatch: channelsPerMatch, run: run)
    }
}
