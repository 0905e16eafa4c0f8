import APNsSimulator
import DemoMatch
import EndToEndSupport
import Foundation
import HTTPServer
import JSON
import PhoneModel
import Postgres
import ScorecastActivity
import ScorecastCore
import Testing
import TestSupport

/// What a fan's phone shows after a whole match through the built binary: the bundled demo
/// match and a real-density match posted to `serve`, broadcast to the APNs simulator over TLS,
/// and every broadcast APNs accepted played into the ``Phone`` model (ActivityKit's rules). However the match is fed,
/// the phone ends on the feed's final truth and shows every alert exactly once.
@Suite("End to end: what the phone shows", .serialized)
struct PhoneEndToEndTests {
    /// How the match reaches the server.
    enum Feeding: String, CaseIterable, CustomTestStringConvertible {
        /// One POST per event.
        case eventByEvent
        /// Ten events per POST.
        case batches
        /// Event by event, with APNs refusing every send from the last goal past the final
        /// whistle, then accepting sends whose answers never come back (so the server sends
        /// them again), then answering again.
        case outageOverTheFinalWhistle

        var testDescription: String { rawValue }
    }

    static let bundleID = "com.example.live"

    /// Short leases and polls; routine updates spaced 100 ms (not 10 s) so that more of the
    /// match's states reach the phone; retries quick and never given up, so an outage ends
    /// when the test lifts it.
    static let settings = [
        "SCORECAST_LEASE_SECONDS": "2", "SCORECAST_POLL_INTERVAL_MS": "100", "SCORECAST_SHUTDOWN_GRACE_SECONDS": "2",
        "SCORECAST_HTTP_PORT": "0", "SCORECAST_ROUTINE_INTERVAL_MS": "100",
        "SCORECAST_RETRY_BASE_MS": "50", "SCORECAST_RETRY_MAX_MS": "400", "SCORECAST_RETRY_MAX_ATTEMPTS": "1000",
    ]

    @Test(arguments: Feeding.allCases)
    func theDemoMatchEndsOnThePhoneAsTheFeedSaysItEnded(feeding: Feeding) async throws {
        let match = try FedMatch.demo()
        #expect(MatchTruth(match.events).alerts.count == 8, "kick-off, five goals, a sending-off and full time")
        try await Self.play(match, feeding)
    }

    @Test(arguments: Feeding.allCases)
    func aRealDensityMatchEndsOnThePhoneAsTheFeedSaysItEnded(feeding: Feeding) async throws {
        let match = FedMatch.realDensity()
        let truth = MatchTruth(match.events)
        #expect(match.events.count == 2_847)
        #expect(truth.alerts.map(\.family) == ["START_", "SCORE_", "SCORE_", "PENALTY_", "SCORE_", "SCORE_", "GOAL_DISALLOWED_", "FINAL_"])
        try await Self.play(match, feeding)
    }

    /// Feeds `match` to `serve` as `feeding` says, then checks what the phone shows against the
    /// feed's truth.
    static func play(_ match: FedMatch, _ feeding: Feeding) async throws {
        let events = match.events
        let truth = MatchTruth(events)
        try await RegistryE2E.with { e2e in
            try await e2e.addApp(Self.bundleID)
            let added = try await e2e.run(
                "games", "add", "--id", match.gameID, "--league", match.league, "--home", match.homeTeam, "--away",
                match.awayTeam, "--starts-at", RFC3339.format(events[0].occurredAt))
            #expect(added.code == 0, "\(added.stderr)")
            let created = try #require(try await e2e.json("channels", "create", "--game", match.gameID, "--app", Self.bundleID) as? [String: Any])
            let channelID = try #require(created["channelId"] as? String)
            let keys = try await e2e.run("keys", "create", "--name", "feed")
            let key = try #require(
                keys.stdout.split(whereSeparator: { $0 == " " || $0 == "\n" }).first { $0.hasPrefix("sck_") }.map(String.init),
                "\(keys.stderr)")

            var environment = e2e.environment
            environment.merge(Self.settings) { _, new in new }
            if feeding == .outageOverTheFinalWhistle {
                // A send whose answer is held is given up after 1 s and made again.
                environment["SCORECAST_APNS_TIMEOUT_MS"] = "1000"
            }
            var finalAcceptedAt: Date?
            let server = try ScorecastProcess(["serve", "--roles", "api,worker"], environment: environment)
            let line = try await server.waitForLine(containing: "HTTP API listening")
            let url = try #require(line.firstMatch(of: /http:\/\/127\.0\.0\.1:[0-9]+/).map { String($0.output) }, "\(line)")
            let feed = Feed(url: url, key: key)

            switch feeding {
            case .eventByEvent:
                for event in events { try await feed.post([event]) }
            case .batches:
                for start in stride(from: 0, to: events.count, by: 10) {
                    try await feed.post(Array(events[start..<min(start + 10, events.count)]))
                }
            case .outageOverTheFinalWhistle:
                let lastGoal = try #require(events.lastIndex { $0.kind == .score })
                for event in events[..<lastGoal] { try await feed.post([event]) }
                try await eventually("everything before the outage is sent") { try await e2e.pool.query("SELECT 1 FROM outbox").isEmpty }
                try e2e.simulator.setFaults(SimulatorFaults(failPercent: 100, failStatus: 503))
                for event in events[lastGoal...] { try await feed.post([event]) }
                let accepted = Date()
                finalAcceptedAt = accepted
                let afterFinal = e2e.simulator.receivedRequests().last?.sequence ?? 0
                // Refused until a whole second after the final was accepted, so the end goes
                // out in a later second than any date stamped when it was ingested.
                let aSecondLater = accepted.timeIntervalSince1970.rounded(.down) + 1
                try await eventually("a send is refused a second after the final whistle was accepted") {
                    Self.broadcasts(e2e, channelID: channelID, after: afterFinal).contains { $0.status == 503 && $0.time >= aSecondLater }
                }
                try e2e.simulator.setFaults(SimulatorFaults(holdAnswers: true))
                let holding = e2e.simulator.receivedRequests().last?.sequence ?? 0
                try await eventually("a send accepted with its answer held is made again") {
                    Self.broadcasts(e2e, channelID: channelID, after: holding).filter { $0.status == 200 }.count >= 2
                }
                try e2e.simulator.setFaults(.none)
            }
            try await eventually("every update is sent") { try await e2e.pool.query("SELECT 1 FROM outbox").isEmpty }
            server.signal(SIGTERM)
            #expect(await server.waitForExit() == 0, "\(server.errorOutput)")

            let phone = Phone(channelID: channelID, log: e2e.simulator.receivedRequests())
            let troubles = phone.outcomes.filter {
                if case .dropped(.undecodable) = $0 { return true }
                if case .dropped(.malformed) = $0 { return true }
                return false
            }
            #expect(troubles.isEmpty, "every push decodes with the app's own types: \(troubles)")
            try truth.check(phone)
            if let finalAcceptedAt {
                // A date stamped when the final was ingested would be at most this second + 30
                // minutes; the end went out at least a second later, and counts from then.
                let dismissedAt = try #require(phone.ending?.dismissedAt)
                #expect(dismissedAt >= Date(timeIntervalSince1970: finalAcceptedAt.timeIntervalSince1970.rounded(.down) + 1 + 1_800))
            }
        }
    }

    static func broadcasts(_ e2e: RegistryE2E, channelID: String, after sequence: Int) -> [SimulatorReceivedRequest] {
        e2e.simulator.receivedRequests(since: sequence).filter { $0.port == "send" && $0.header("apns-channel-id") == channelID }
    }
}

/// A feed posting to `POST /v1/events` with its key.
struct Feed {
    let url: String
    let key: String

    /// Posts `events` (one alone, several as a batch); each must be accepted.
    func post(_ events: [FeedEvent]) async throws {
        let body = events.count == 1 ? events[0].jsonValue : JSONValue.object(["events": .array(events.map(\.jsonValue))])
        let answer = try await TestClient.live(url).execute(
            .post, "/v1/events", headers: ["Authorization": "Bearer \(key)", "Content-Type": "application/json"],
            body: try body.encoded())
        let text = String(decoding: answer.body, as: UTF8.self)
        #expect(answer.status == 202, "\(text)")
        #expect(try jsonObject(answer.body)["accepted"] as? Int == events.count, "every event accepted: \(text)")
    }
}

/// A match to feed: its game's registration and its events, played out in the past of the
/// server's clock (as a live feed's are, each `occurredAt` before it arrives).
struct FedMatch {
    var gameID: String
    var league: String
    var homeTeam: String
    var awayTeam: String
    var events: [FeedEvent]

    /// The bundled demo match at real speed, over an hour ago, read as ingest reads it.
    static func demo() throws -> FedMatch {
        let length = Double(DemoFeed.matchLength.components.seconds)
        let start = Date().addingTimeInterval(-(length + 3_600)).timeIntervalSince1970.rounded(.down)
        let events = try DemoFeed.events(startingAt: Date(timeIntervalSince1970: start), speedup: 1).map { timed in
            try FeedEventValidator().event(from: JSONParser().parse(Array(try timed.event.jsonData())), now: timed.event.occurredAt)
        }
        return FedMatch(
            gameID: DemoFeed.gameID, league: DemoFeed.league, homeTeam: DemoFeed.homeTeam, awayTeam: DemoFeed.awayTeam, events: events)
    }

    /// The default real-density match (about 2,800 events over two hours of real time), its
    /// fixture four hours ago.
    static func realDensity() -> FedMatch {
        let start = Date(timeIntervalSince1970: Date().addingTimeInterval(-4 * 3_600).timeIntervalSince1970.rounded(.down))
        let match = RealDensityMatch(start: start)
        return FedMatch(
            gameID: match.game, league: "Test League", homeTeam: RealDensityMatch.homeTeam, awayTeam: RealDensityMatch.awayTeam,
            events: match.events)
    }
}

/// What the feed says happened, from its events alone: the final score and period, the
/// scorers and cards in order, and the alerts a fan must see (the default policy: kick-off,
/// every goal, every penalty awarded, every goal taken back by a video review, every
/// sending-off, a suspension, full time or a cancellation).
struct MatchTruth {
    struct Expected: CustomStringConvertible {
        /// The title key's beginning (`SCORE_`, `CARD_RED`…).
        var family: String
        /// The player the title names, when it names one.
        var player: String?
        var description: String { player.map { "\(family) \($0)" } ?? family }
    }

    var home = 0
    var away = 0
    var period = ""
    var scorers: [String] = []
    var cards: [String] = []
    var alerts: [Expected] = []

    init(_ events: [FeedEvent]) {
        var clock = ""
        var scorerOfGoal: [String: Int] = [:]
        var disallowed: Set<Int> = []
        for event in events {
            home = event.scoreboard.home ?? home
            away = event.scoreboard.away ?? away
            period = event.scoreboard.period.applied(to: period) ?? ""
            clock = event.scoreboard.clock.applied(to: clock) ?? ""
            let who = "\(event.team?.rawValue ?? "?") \(event.shortName ?? event.player ?? "?") \(clock)"
            switch event.kind {
            case .start: alerts.append(Expected(family: "START_"))
            case .score:
                scorerOfGoal[event.id] = scorers.count
                scorers.append(who)
                alerts.append(Expected(family: "SCORE_", player: event.shortName))
            case .card:
                cards.append("\(who) \(event.card?.rawValue ?? "?")")
                if event.card == .red { alerts.append(Expected(family: "CARD_RED_", player: event.shortName)) }
                if event.card == .secondYellow { alerts.append(Expected(family: "CARD_SECOND_YELLOW_", player: event.shortName)) }
            case .videoReview:
                // A review that takes a goal back removes its scorer and says so, as the goal did.
                if let goal = event.disallows, let scorer = scorerOfGoal[goal] {
                    disallowed.insert(scorer)
                    alerts.append(Expected(family: "GOAL_DISALLOWED_", player: event.shortName))
                }
            case .penalty: alerts.append(Expected(family: "PENALTY_"))
            case .suspended: alerts.append(Expected(family: "SUSPENDED_"))
            case .final: alerts.append(Expected(family: "FINAL_"))
            case .cancelled: alerts.append(Expected(family: "CANCELLED_"))
            default: break
            }
        }
        scorers = scorers.enumerated().filter { !disallowed.contains($0.offset) }.map(\.element)
    }

    /// Checks that `phone` ended on this truth and showed each expected alert once, in order.
    func check(_ phone: Phone, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let shown = try #require(phone.shown, "the phone shows the match", sourceLocation: sourceLocation)
        #expect(shown.status == .final, sourceLocation: sourceLocation)
        #expect("\(shown.homeScore)-\(shown.awayScore)" == "\(home)-\(away)", sourceLocation: sourceLocation)
        #expect(shown.period == period, sourceLocation: sourceLocation)
        func minute(_ minute: Int?, _ added: Int?) -> String { minute.map { ContentState.minuteText($0, added: added) } ?? "?" }
        #expect(shown.earlierScorers == nil && shown.earlierCards == nil, "every play listed", sourceLocation: sourceLocation)
        #expect(
            shown.scorers.map { "\($0.team.rawValue) \($0.player ?? "?") \(minute($0.minute, $0.addedMinute))" } == scorers,
            sourceLocation: sourceLocation)
        #expect(
            shown.cards.map { "\($0.team.rawValue) \($0.player ?? "?") \(minute($0.minute, $0.addedMinute)) \($0.colour.rawValue)" } == cards,
            sourceLocation: sourceLocation)
        let seen = phone.alerts.map { alert in
            let key = alert.title?.key ?? "?"
            return "\(key) \(alert.title?.arguments ?? [])"
        }
        let matches = phone.alerts.count == alerts.count && zip(phone.alerts, alerts).allSatisfy { shownAlert, expected in
            guard let title = shownAlert.title, let key = title.key, key.hasPrefix(expected.family) else { return false }
            return expected.player.map { title.arguments.contains($0) } ?? true
        }
        #expect(matches, "each alert once, in order: expected \(alerts), shown \(seen)", sourceLocation: sourceLocation)
        let ending = try #require(phone.ending, "the activity ended", sourceLocation: sourceLocation)
        // Dismissed the app's delay (30 minutes) after the end was sent, which is no later than
        // it arrived: not at once, and not later than that delay after its arrival.
        #expect(phone.isShowing(at: ending.endedAt), sourceLocation: sourceLocation)
        #expect(ending.dismissedAt <= ending.endedAt.addingTimeInterval(1_800), sourceLocation: sourceLocation)
    }
}
