import DemoMatch
import Foundation
import ScorecastCore

/// The bundled match (``DemoFeed``) as the Saturday's pattern, and its events rewritten for one
/// match of the day: the match's own game id, event ids unique to the run, seqs above earlier runs',
/// times stamped when sent (the announced kick-off as far ahead as the compressed replay has it).
struct SaturdayFeed: Sendable {
    /// The bundled match's events, at real pace.
    let events: [DemoFeed.TimedEvent]
    /// The games, one per match.
    let games: [String]
    /// Makes event ids unique across runs.
    let runTag: String
    /// Added to every seq so that the day's events are newer than earlier runs'.
    let seqBase: Int
    /// The replay's time compression.
    let speed: Double

    /// The bundled match at real pace (its announcement at time 0), for `games` (one match each).
    init(games: [String], runTag: String, seqBase: Int, speed: Double) throws {
        events = try DemoFeed.events(startingAt: Date(timeIntervalSince1970: 0), speedup: 1)
        self.games = games
        self.runTag = runTag
        self.seqBase = seqBase
        self.speed = speed
    }

    /// Every event's offset from the announcement, real seconds: the schedule's pattern.
    var pattern: [Double] { events.map(\.offset.seconds) }

    /// The JSON body of `entry`, stamped as occurring at `now`.
    func body(_ entry: SaturdaySchedule.Entry, now: Date) throws -> [UInt8] {
        var event = events[entry.event].event
        let game = games[entry.match]
        event.game = game
        event.seq = seqBase + event.seq
        event.id = "\(runTag)-\(game)-\(event.seq)"
        event.occurredAt = now
        // The announcement's kick-off, planned at real pace from time 0: the same lead, compressed.
        if case .string(let planned) = event.scoreboard.extra["kickoffAt"], let kickoff = RFC3339.parse(planned) {
            let lead = (kickoff.timeIntervalSince1970 - events[entry.event].offset.seconds) / speed
            event.scoreboard.extra["kickoffAt"] = .string(RFC3339.format(now.addingTimeInterval(lead)))
        }
        return Array(try event.jsonData())
    }
}
