import Arguments
import DeliveryEngine
import Foundation
import Registry
import ScorecastCore

/// `scorecast-bench render`: the CPU cost of rendering inside an ingest, without
/// Postgres or HTTP. Each round plans one request the way part 3 feeds `serve` — one event per
/// game, 30% goals, the rest a clock and a shown stat, a new match every 90 — for games bound to one channel per app
/// (the apps' settings equal, as in part 3), through ``OutboxPlanner`` as ingest does; then it
/// times ``LiveActivityRenderer/render(state:game:event:channelLastTimestamp:receivedAt:)`` alone.
/// Prints medians and means per plan, per channel update and per render.
struct RenderBenchmark {
    var rounds = 2000
    var games = 10
    var channelsPerGame = 4

    static let options: [OptionSpec] = [
        .flag("quick", "200 rounds"),
        .value("rounds", "N", "planned requests (default 2000)"),
    ]

    /// Reads `--rounds N` or `--quick`.
    init(arguments: [String]) throws(ArgumentError) {
        let parsed = try ParsedArguments(arguments, options: Self.options, positionalLimit: 0)
        if parsed.flag("quick") { rounds = 200 }
        rounds = try parsed.integer("rounds", in: 10...10_000_000) ?? rounds
    }

    private static let start = Date(timeIntervalSince1970: 1_764_450_000)
    private static let matchLength = 90
    private static let game = GameInfo(sport: "soccer", homeName: "Arsenal", awayName: "Chelsea")

    /// Runs the rounds; the report's lines.
    func run() throws -> [String] {
        let gameIDs = (0..<games).map { "bench-g\($0)" }
        let targets = gameIDs.indices.flatMap { game in
            (0..<channelsPerGame).map { app in
                ChannelTarget(
                    channelID: Int64(game * channelsPerGame + app), gameID: gameIDs[game], lastTimestamp: 0, lastSentAt: nil,
                    renderer: LiveActivityRenderer(), pending: nil)
            }
        }
        let infos = Dictionary(uniqueKeysWithValues: gameIDs.map { ($0, Self.game) })
        let sports = infos.mapValues(\.sport)
        let planner = OutboxPlanner(shaping: ShapingPolicy(routineInterval: 0))
        let clock = ContinuousClock()
        var states = Dictionary(uniqueKeysWithValues: gameIDs.map { ($0, GameState.initial) })
        var planTimes: [Duration] = []
        var updates = 0
        for round in 0..<rounds {
            // A new match every 90 events per game, so lists and scores stay a match's size.
            if round % Self.matchLength == 0 { states = states.mapValues { _ in .initial } }
            let events = gameIDs.indices.map { event(round: round, game: $0, id: gameIDs[$0]) }
            let fold = GameFold(events: events, isDuplicate: events.map { _ in false }, games: states, sports: sports)
            let ids = Dictionary(uniqueKeysWithValues: events.indices.map { ($0, Int64(round * games + $0)) })
            let now = Self.start.addingTimeInterval(Double(round))
            let began = clock.now
            let writes = try planner.plan(fold: fold, games: infos, targets: targets, eventIDs: ids, now: now)
            planTimes.append(clock.now - began)
            updates += writes.count
            states.merge(fold.states) { $1 }
        }

        // One game's latest state rendered alone, for the cost of one channel's update.
        let state = states[gameIDs[0]] ?? .initial
        let goal = event(round: rounds + 1, game: 0, id: gameIDs[0])
        let renderer = LiveActivityRenderer()
        var renderTimes: [Duration] = []
        for _ in 0..<rounds {
            let began = clock.now
            _ = try renderer.render(state: state, game: Self.game, event: goal, channelLastTimestamp: nil, receivedAt: Self.start)
            renderTimes.append(clock.now - began)
        }
        let perUpdate = planTimes.reduce(Duration.zero, +) / max(1, updates)
        return [
            "render benchmark: \(rounds) rounds of \(games) games × \(channelsPerGame) channels (\(updates) channel updates)",
            "plan: \(Self.summary(planTimes)) per request; \(Self.microseconds(perUpdate)) per channel update (mean)",
            "render alone: \(Self.summary(renderTimes)) per render",
        ]
    }

    /// Event `round` of `game`, as part 3 posts them: every third-ish a goal, otherwise the clock
    /// and a shown stat.
    private func event(round: Int, game: Int, id: String) -> FeedEvent {
        let alerting = (round * games + game) % 10 < 3
        let minute = round % Self.matchLength
        let occurredAt = Self.start.addingTimeInterval(Double(round) + 0.25)
        if minute == 0 {
            return FeedEvent(
                id: "\(id)-\(round)", game: id, seq: round + 1, occurredAt: occurredAt, kind: .start,
                scoreboard: ScoreboardUpdate(period: .set("1H"), clock: .set("0'")))
        }
        return FeedEvent(
            id: "\(id)-\(round)", game: id, seq: round + 1, occurredAt: occurredAt, kind: alerting ? .score : .clock,
            scoreboard: alerting
                ? ScoreboardUpdate(home: minute / 2, away: (minute + 1) / 2, clock: .set("\(minute)'"))
                : ScoreboardUpdate(clock: .set("\(minute)'"), extra: ["round": .integer(round)]),
            team: .home)
    }

    private static func summary(_ times: [Duration]) -> String {
        let sorted = times.sorted()
        return "median \(microseconds(sorted[sorted.count / 2])), mean \(microseconds(sorted.reduce(Duration.zero, +) / sorted.count))"
    }

    private static func microseconds(_ duration: Duration) -> String {
        let seconds = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        return String(format: "%.1f µs", seconds * 1e6)
    }
}
