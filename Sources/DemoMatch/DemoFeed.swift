import Foundation
import ScorecastCore

/// A bundled, realistic football match to replay through the real ingest API: Northbridge United
/// v Castleford City, 90+5 minutes with five goals, six yellow cards and a red, eight
/// substitutions, three VAR checks, half-time and full time — 72 events in all.
///
/// ```swift
/// for timed in try DemoFeed.events(startingAt: .now, speedup: 60) {
///     try await clock.sleep(until: start + timed.offset)
///     try await post(timed.event.jsonData())
/// }
/// ```
package enum DemoFeed {
    /// The game's external id.
    package static let gameID = "demo-nbu-cfc"
    /// The home team.
    package static let homeTeam = "Northbridge United"
    /// The away team.
    package static let awayTeam = "Castleford City"
    /// The home team's code and colours, registered with the game.
    package static let homeIdentity = TeamIdentity(code: "NBU", primaryColour: "#C8102E", secondaryColour: "#FFFFFF")
    /// The away team's code and colours.
    package static let awayIdentity = TeamIdentity(code: "CFC", primaryColour: "#1D428A", secondaryColour: "#FFC72C")
    /// The competition.
    package static let league = "Demo League"
    /// The sport.
    package static let sport = "football"
    /// The ground.
    package static let venue = "Riverside Park"
    /// A replay speed that plays the whole match in about two minutes.
    package static let defaultSpeedup = 60.0

    /// An event and when to send it.
    package struct TimedEvent: Sendable, Equatable {
        /// When to send it, after the start of the replay.
        package var offset: Duration
        /// The event; its `occurredAt` is the start plus `offset`, to the whole second below.
        package var event: DemoEvent
    }

    /// How long the match lasts in real time, from the announcement to the final whistle.
    package static var matchLength: Duration {
        .seconds(timeline.last?.time.offset ?? 0)
    }

    /// Every event of the match, in order, timed for a replay that starts at `start` and runs
    /// `speedup` times faster than real time (1 = real time, 60 = a minute of play per second).
    /// Throws unless `speedup` is a finite number above 0.
    package static func events(startingAt start: Date, speedup: Double) throws(DemoFeedError) -> [TimedEvent] {
        guard speedup.isFinite, speedup > 0 else { throw .invalidSpeedup(speedup) }
        var home = 0
        var away = 0
        var result: [TimedEvent] = []
        for (index, entry) in timeline.enumerated() {
            if entry.kind == .score {
                if entry.team == .home { home += 1 } else { away += 1 }
            }
            let seconds = Double(entry.time.offset) / speedup
            let occurredAt = Date(timeIntervalSince1970: (start.timeIntervalSince1970 + seconds).rounded(.down))
            var extra = entry.extra
            if entry.kind == .scheduled {
                let kickoff = start.addingTimeInterval(Double(DemoScript.MatchTime.kickoff) / speedup)
                extra["kickoffAt"] = .string(RFC3339.format(kickoff))
            }
            // The script's notes that the feed schema has fields for travel in those fields.
            let card = extra.removeValue(forKey: "card").flatMap { if case .string(let colour) = $0 { colour } else { nil } }
            let addedTime = extra.removeValue(forKey: "addedMinutes").flatMap { if case .int(let minutes) = $0 { minutes } else { nil } }
            let penalty = entry.kind == .score && extra["method"] == .string("penalty") ? true : nil
            let scoreboard = DemoScoreboard(
                home: home, away: away, period: entry.time.period, clock: entry.time.clock, extra: extra, addedTime: addedTime)
            let seq = index + 1
            let event = DemoEvent(
                id: "\(gameID)-\(String(repeating: "0", count: max(0, 4 - String(seq).count)))\(seq)",
                game: gameID, seq: seq, occurredAt: occurredAt, kind: entry.kind, scoreboard: scoreboard,
                description: describe(entry, scoreboard: scoreboard), team: entry.team, player: entry.player,
                shortName: entry.player.flatMap { $0.split(separator: " ").last.map(String.init) }, card: card, penalty: penalty)
            result.append(TimedEvent(offset: .seconds(seconds), event: event))
        }
        return result
    }

    /// The scripted incidents plus a clock tick every three minutes of play, in time order
    /// (incidents first when they share a second with a tick).
    static let timeline: [DemoScript.Entry] = {
        let ticks = stride(from: 3, through: 45, by: 3).map { DemoScript.MatchTime.first($0) }
            + stride(from: 48, through: 90, by: 3).map { DemoScript.MatchTime.second($0) }
        let tickEntries = ticks.map { DemoScript.Entry(time: $0, kind: .clock) }
        let all = DemoScript.entries + tickEntries
        return all.enumerated()
            .sorted { ($0.element.time.offset, $0.offset) < ($1.element.time.offset, $1.offset) }
            .map(\.element)
    }()

    private static func describe(_ entry: DemoScript.Entry, scoreboard: DemoScoreboard) -> String {
        guard entry.description.isEmpty else { return entry.description }
        let score = "\(homeTeam) \(scoreboard.home)-\(scoreboard.away) \(awayTeam)"
        switch entry.kind {
        case .stats:
            func pair(_ name: String, _ suffix: String = "") -> String {
                "\(int(entry.extra[name + "Home"]))\(suffix)-\(int(entry.extra[name + "Away"]))\(suffix)"
            }
            let when = scoreboard.period == .halfTime ? "half-time" : scoreboard.clock
            return "Match stats at \(when): shots \(pair("shots")) (on target \(pair("shotsOnTarget"))), possession \(pair("possession", "%")), corners \(pair("corners")), fouls \(pair("fouls"))."
        default:
            return "\(scoreboard.clock) \(score)."
        }
    }

    private static func int(_ scalar: DemoScalar?) -> Int {
        if case .int(let value) = scalar { return value }
        return 0
    }
}

/// Why a demo replay could not be planned.
package enum DemoFeedError: Error, Equatable, CustomStringConvertible {
    /// The speed-up factor is not a finite number above 0.
    case invalidSpeedup(Double)

    /// A one-line explanation naming the bad value.
    package var description: String {
        switch self {
        case .invalidSpeedup(let value):
            "demo speed-up \(value) is invalid: use a number above 0 (1 = real time, 60 = one minute of play per second)"
        }
    }
}
