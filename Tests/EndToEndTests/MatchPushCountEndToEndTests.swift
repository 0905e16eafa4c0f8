import APNsSimulator
import DemoMatch
import EndToEndSupport
import Foundation
import HTTPServer
import JSON
import Registry
import ScorecastCore
import ServiceBase
import Testing
import TestSupport

/// How many pushes a whole match costs each channel, counted in the simulator's request log: a
/// match posted event by event to the built `serve` (real Postgres, the simulator over TLS),
/// with a standard and a light channel bound to the game.
///
/// No wall clock is involved in what is counted. The feed waits after each event until the
/// outbox is empty (every push it caused is answered) before it posts the next, and routine
/// spacing (`SCORECAST_ROUTINE_INTERVAL_MS`) is off, so each update written is one push, whatever
/// the machine's speed; what is written is decided on the events' own times. At real-time pace
/// the default spacing can only merge routine pushes, never add one.
@Suite("End to end: pushes per channel over a whole match", .serialized)
struct MatchPushCountEndToEndTests {
    static let bundleID = "com.example.match"
    static let settings = [
        "SCORECAST_ROUTINE_INTERVAL_MS": "0", "SCORECAST_POLL_INTERVAL_MS": "100", "SCORECAST_HTTP_PORT": "0",
        "SCORECAST_LOG_LEVEL": "info",
    ]

    /// One channel's accepted pushes, and after which event each went.
    struct ChannelLog {
        var tier: String
        var policy: PriorityPolicy
        /// (index of the event just posted, priority, the body's `aps`), in the order APNs accepted them.
        var pushes: [(after: Int, priority: Int, aps: JSONValue)] = []

        func count(priority: Int) -> Int { pushes.filter { $0.priority == priority }.count }
    }

    /// A match to replay: its events and the game's registration.
    struct Match {
        var name: String
        var game: String
        var home: String
        var away: String
        var events: [FeedEvent]

        /// Kick-off to the final whistle, in minutes.
        var realTimeMinutes: Double {
            guard let kickoff = events.first(where: { $0.kind == .start })?.occurredAt, let end = events.last?.occurredAt else { return 0 }
            return end.timeIntervalSince(kickoff) / 60
        }
    }

    /// Three hours ago, to the second: every event of a match is in the server's past.
    static var start: Date { Date(timeIntervalSince1970: (Date().timeIntervalSince1970 - 3 * 3_600).rounded(.down)) }

    static func realDensity() -> Match {
        let match = RealDensityMatch(start: start)
        return Match(name: "real-density match (seed \(match.seed))", game: match.game, home: RealDensityMatch.homeTeam,
                     away: RealDensityMatch.awayTeam, events: match.events)
    }

    static func demo() throws -> Match {
        let events = try DemoFeed.events(startingAt: start, speedup: 1).map { timed in
            try FeedEventValidator().event(from: JSONParser().parse(Array(try timed.event.jsonData())), now: timed.event.occurredAt)
        }
        return Match(name: "demo match", game: DemoFeed.gameID, home: DemoFeed.homeTeam, away: DemoFeed.awayTeam, events: events)
    }

    /// Posts `match` event by event to a `serve` with `extra` settings; returns each channel's pushes.
    static func replay(_ match: Match, extra: [String: String] = [:]) async throws -> [ChannelLog] {
        var logs: [ChannelLog] = []
        try await RegistryE2E.with(settings.merging(extra) { _, new in new }) { e2e in
            try await e2e.addApp(bundleID)
            let added = try await e2e.run(
                "games", "add", "--id", match.game, "--league", "Test League", "--home", match.home, "--away", match.away,
                "--starts-at", RFC3339.format(match.events.first?.occurredAt ?? start), "--sport", "football")
            #expect(added.code == 0, "\(added.stderr)")
            let standard = try #require(try await e2e.json("channels", "create", "--game", match.game, "--app", bundleID) as? [String: Any])
            let light = try #require(try await e2e.json("games", "light-channel", match.game, "--app", bundleID) as? [String: Any])
            let channels = [
                (id: try #require(standard["channelId"] as? String), log: ChannelLog(tier: "standard", policy: PriorityPolicy())),
                (id: try #require(light["channelId"] as? String), log: ChannelLog(tier: "light", policy: .lightTier)),
            ]
            let keys = try await e2e.run("keys", "create", "--name", "feed")
            let key = try #require(
                keys.stdout.split(whereSeparator: { $0 == " " || $0 == "\n" }).first { $0.hasPrefix("sck_") }.map(String.init))
            var environment = e2e.environment
            environment.merge(settings.merging(extra) { _, new in new }) { _, new in new }
            let server = try ScorecastProcess(["serve", "--roles", "api,worker"], environment: environment)
            let line = try await server.waitForLine(containing: "HTTP API listening")
            let url = try #require(line.firstMatch(of: /http:\/\/127\.0\.0\.1:[0-9]+/).map { String($0.output) })

            var after: [Int: Int] = [:]
            var seen = 0
            for (index, event) in match.events.enumerated() {
                let answer = try await TestClient.live(url).execute(
                    .post, "/v1/events", headers: ["Authorization": "Bearer \(key)", "Content-Type": "application/json"],
                    body: try event.jsonValue.encoded())
                #expect(answer.status == 202, "event \(event.seq): \(String(decoding: answer.body, as: UTF8.self))")
                try await eventually("the pushes of event \(event.seq) are answered", every: .milliseconds(5)) {
                    try await e2e.pool.query("SELECT 1 FROM outbox").isEmpty
                }
                let log = e2e.simulator.receivedRequests(since: seen)
                for request in log { after[request.sequence] = index }
                seen = log.last?.sequence ?? seen
            }
            server.signal(SIGTERM)
            #expect(await server.waitForExit() == 0, "\(server.errorOutput)")

            let accepted = e2e.simulator.receivedRequests().filter { $0.port == "send" && $0.status == 200 }
            for (id, log) in channels {
                var log = log
                for request in accepted where request.header("apns-channel-id") == id {
                    let aps = try #require(try JSONParser().parse(request.body)["aps"])
                    log.pushes.append((try #require(after[request.sequence]), Int(request.header("apns-priority") ?? "") ?? 0, aps))
                }
                logs.append(log)
            }
        }
        return logs
    }

    /// The figures as one line per channel, for the report.
    static func figures(_ match: Match, _ logs: [ChannelLog], label: String) -> String {
        logs.map { log in
            let routine = Double(log.count(priority: 5)) / match.realTimeMinutes
            return String(
                format: "%@, %@ (%d events, %.1f min): %@ channel: %d pushes, %d at priority 10, %d at priority 5 (%.2f routine per minute)",
                match.name, label, match.events.count, match.realTimeMinutes, log.tier, log.pushes.count, log.count(priority: 10),
                log.count(priority: 5), routine)
        }.joined(separator: "\n")
    }

    /// Every notable play and every alerting event went at once (the push right after it shows
    /// it), no push repeats the one before, the last one shows the final score.
    static func checkEveryPlayGoesAtOnce(_ match: Match, _ log: ChannelLog) throws {
        for (index, event) in match.events.enumerated() where event.kind.isNotable || log.policy.isAlerting(event) {
            let push = try #require(log.pushes.last { $0.after == index }, "\(log.tier): no push after \(event.kind) \(event.seq)")
            let state = try #require(push.aps["content-state"])
            #expect(state["lastEvent"]?["kind"]?.stringValue == event.kind.rawValue, "\(log.tier): \(event.seq)")
            #expect(state["homeScore"]?.integerValue == event.scoreboard.home, "\(log.tier): \(event.seq)")
            #expect(state["awayScore"]?.integerValue == event.scoreboard.away, "\(log.tier): \(event.seq)")
            #expect((push.aps["alert"] != nil) == log.policy.isAlerting(event), "\(log.tier): \(event.seq)")
        }
        for (previous, next) in zip(log.pushes, log.pushes.dropFirst()) {
            #expect(previous.aps["content-state"] != next.aps["content-state"], "\(log.tier): a push repeats the one before")
        }
        let last = try #require(log.pushes.last)
        #expect(last.aps["event"]?.stringValue == "end")
        #expect(last.aps["content-state"]?["homeScore"]?.integerValue == match.events.last?.scoreboard.home)
        #expect(last.aps["content-state"]?["awayScore"]?.integerValue == match.events.last?.scoreboard.away)
    }

    /// The events a channel must push after, as ingest's fold decides them for its tier.
    static func predicted(_ match: Match, _ log: ChannelLog, notice: NoticePolicy) throws -> [Int] {
        let fold = GameFold(
            events: match.events, isDuplicate: match.events.map { _ in false }, games: [:], sports: [match.game: "football"],
            notice: notice)
        let steps = try #require(fold.steps[match.game])
        return steps.filter { $0.changesWhatIsShown || log.policy.isAlerting($0.event) }.map(\.index)
    }

    /// Routine updates per minute of `match` that ingest's fold writes for a channel of `policy`'s tier.
    static func routinePerMinute(_ match: Match, _ policy: PriorityPolicy, notice: NoticePolicy) throws -> Double {
        let log = ChannelLog(tier: "", policy: policy)
        let routine = try predicted(match, log, notice: notice).filter { !policy.isAlerting(match.events[$0]) }
        return Double(routine.count) / match.realTimeMinutes
    }

    /// Why the statistics cadence defaults to a minute, decided as ingest decides (no server):
    /// over six real-density matches it keeps both tiers under the target, half a minute does not.
    @Test("the default statistics cadence is the shortest whole minute that meets the target on real-density matches")
    func theDefaultCadenceIsChosenFromRealDensityMatches() throws {
        var halfMinute: [Double] = []
        for seed in UInt64(1)...6 {
            let generated = RealDensityMatch(seed: seed, start: Self.start)
            let match = Match(name: "seed \(seed)", game: generated.game, home: "", away: "", events: generated.events)
            for policy in [PriorityPolicy(), .lightTier] {
                #expect(try Self.routinePerMinute(match, policy, notice: NoticePolicy()) <= 1, "seed \(seed)")
                #expect(try Self.routinePerMinute(match, policy, notice: NoticePolicy(statisticsInterval: 0)) > 1.5, "seed \(seed)")
                halfMinute.append(try Self.routinePerMinute(match, policy, notice: NoticePolicy(statisticsInterval: 30)))
            }
        }
        #expect(NoticePolicy.defaultStatisticsInterval == 60)
        #expect(halfMinute.contains { $0 > 1 }, "half a minute would do: \(halfMinute)")
    }

    @Test("a real-density match: at most one routine push per channel per minute, every notable play at once")
    func realDensityMatchMeetsTheTarget() async throws {
        let match = Self.realDensity()
        let logs = try await Self.replay(match)
        print(Self.figures(match, logs, label: "statistics every \(Setting.statisticsIntervalSeconds.defaultText) s"))
        #expect(logs.count == 2)
        for log in logs {
            #expect(Double(log.count(priority: 5)) <= match.realTimeMinutes, "\(log.tier): \(log.count(priority: 5)) routine pushes")
            #expect(log.pushes.map(\.after) == (try Self.predicted(match, log, notice: NoticePolicy())))
            try Self.checkEveryPlayGoesAtOnce(match, log)
        }
    }

    /// The figures before the cadence: statistics pushed as they change (a cadence of 0 decides
    /// as ingest did before there was one).
    @Test("statistics pushed as they change: a real-density match goes above one routine push per channel per minute")
    func statisticsAsTheyChangeMissTheTarget() async throws {
        for match in [Self.realDensity(), try Self.demo()] {
            let logs = try await Self.replay(match, extra: ["SCORECAST_STATS_INTERVAL_SECONDS": "0"])
            print(Self.figures(match, logs, label: "statistics as they change"))
            for log in logs {
                #expect(log.pushes.map(\.after) == (try Self.predicted(match, log, notice: NoticePolicy(statisticsInterval: 0))))
                try Self.checkEveryPlayGoesAtOnce(match, log)
            }
            if match.events.count > 1_000 {
                for log in logs {
                    #expect(Double(log.count(priority: 5)) > 1.5 * match.realTimeMinutes, "\(log.tier): \(log.count(priority: 5)) routine pushes")
                }
            }
        }
    }

    @Test("the demo match: every notable play at once, statistics at their cadence")
    func demoMatchMeetsTheTarget() async throws {
        let match = try Self.demo()
        let logs = try await Self.replay(match)
        print(Self.figures(match, logs, label: "statistics every \(Setting.statisticsIntervalSeconds.defaultText) s"))
        for log in logs {
            #expect(Double(log.count(priority: 5)) <= match.realTimeMinutes)
            #expect(log.pushes.map(\.after) == (try Self.predicted(match, log, notice: NoticePolicy())))
            try Self.checkEveryPlayGoesAtOnce(match, log)
        }
    }
}

