import APNsSimulator
import EndToEndSupport
import Foundation
import JSON
import Postgres
import ScorecastCore
import Testing
import TestSupport

/// One fault scenario's world: the built `scorecast serve`, a schema of its own, the simulator
/// in this process (its faults and request log), three games each with one channel, a feed key.
///
/// Time is compressed through settings only: 2 s leases, 100 ms polling, 3 attempts per update
/// (a row given up then waits the longest backoff, ten minutes, unless the circuit breaker's
/// close releases it), no routine spacing.
///
/// No test bounds recovery with a fixed number of seconds (a loaded CI machine can miss any):
/// the wait for the newest state gives up only at the hang deadline, and the tests count from
/// the simulator's log what recovery cost (no send failed after the fault cleared). The seconds
/// are printed in the report rows, never judged.
struct FaultBed {
    let e2e: RegistryE2E
    /// APNs channel id by game id.
    let channels: [String: String]
    let key: String

    static let games = ["g0", "g1", "g2"]
    static let settings = [
        "SCORECAST_LEASE_SECONDS": "2", "SCORECAST_POLL_INTERVAL_MS": "100", "SCORECAST_SHUTDOWN_GRACE_SECONDS": "2",
        "SCORECAST_ROUTINE_INTERVAL_MS": "0", "SCORECAST_RETRY_MAX_ATTEMPTS": "3", "SCORECAST_RETRY_BASE_MS": "50",
        "SCORECAST_RETRY_MAX_MS": "600000", "SCORECAST_APNS_TIMEOUT_MS": "3000", "SCORECAST_LOG_LEVEL": "info",
        "SCORECAST_HTTP_PORT": "0", "SCORECAST_POLLER_RESCUE_SECONDS": "1",
    ]

    /// Runs `body` in a new world; `database` replaces the shared test database (a cluster of
    /// the test's own, for the faults that stop Postgres); `schema` and `extra` as
    /// `RegistryE2E.with` takes them.
    static func with(
        database: TestDatabase? = nil, schema: PostgresConfiguration? = nil, extra: [String: String] = [:],
        _ body: (FaultBed) async throws -> Void
    ) async throws {
        try await RegistryE2E.with(extra, database: database, schema: schema) { e2e in
            try await body(try await prepare(e2e))
        }
    }

    /// Runs `body` with `serve` (every role) running the embedded cluster of the bed's state
    /// folder, which it owns and supervises; the bed's commands share that cluster.
    static func withEmbeddedServe(
        extra: [String: String] = [:], stateIn parent: URL = URL(fileURLWithPath: NSTemporaryDirectory()),
        _ body: (FaultBed, ScorecastProcess, String) async throws -> Void
    ) async throws {
        try await RegistryE2E.with(extra, embedded: true, stateIn: parent) { e2e in
            var environment = e2e.environment
            environment.merge(settings) { _, new in new }
            let process = try ScorecastProcess(["serve"], environment: environment)
            let line = try await process.waitForLine(containing: "HTTP API listening")
            guard let match = line.firstMatch(of: /http:\/\/127\.0\.0\.1:[0-9]+/) else { throw TestSupportError("no API URL in \(line)") }
            try await body(try await prepare(e2e), process, String(match.output))
        }
    }

    /// The app, the games with a channel each and the feed's key, made through the CLI.
    private static func prepare(_ e2e: RegistryE2E) async throws -> FaultBed {
        try await e2e.addApp("com.example.live")
        var channels: [String: String] = [:]
        for game in games {
            try await e2e.addGame(game)
            let created = try #require(
                try await e2e.json("channels", "create", "--game", game, "--app", "com.example.live") as? [String: Any])
            channels[game] = try #require(created["channelId"] as? String)
        }
        let keys = try await e2e.run("keys", "create", "--name", "feed")
        let key = try #require(
            keys.stdout.split(whereSeparator: { $0 == " " || $0 == "\n" }).first { $0.hasPrefix("sck_") }.map(String.init),
            "\(keys.stderr)")
        return FaultBed(e2e: e2e, channels: channels, key: key)
    }

    /// Starts `serve` (every role, or `roles`; `extra` settings over the bed's); returns it with
    /// its API URL when it has the api role.
    func serve(roles: String = "api,worker,poller", extra: [String: String] = [:]) async throws -> (process: ScorecastProcess, url: String?) {
        var environment = e2e.environment
        environment.merge(Self.settings) { _, new in new }
        environment.merge(extra) { _, new in new }
        let process = try ScorecastProcess(["serve", "--roles", roles], environment: environment)
        guard roles.contains("api") else { return (process, nil) }
        let line = try await process.waitForLine(containing: "HTTP API listening")
        guard let match = line.firstMatch(of: /http:\/\/127\.0\.0\.1:[0-9]+/) else { throw TestSupportError("no API URL in \(line)") }
        return (process, String(match.output))
    }

    /// A goal (or, with `kind`, another event) of `game` by `player`, the score after it `home`–`away`.
    static func event(_ game: String, seq: Int, kind: String = "score", player: String, home: Int, away: Int = 0, alert: Bool? = nil) -> String {
        let flag = alert.map { #", "alert": \#($0)"# } ?? ""
        return #"{"id": "\#(game)-\#(seq)", "game": "\#(game)", "seq": \#(seq), "occurredAt": "2025-11-29T20:\#(String(format: "%02d", seq)):00Z", "kind": "\#(kind)", "team": "home", "player": "\#(player)"\#(flag), "scoreboard": {"home": \#(home), "away": \#(away), "clock": "\#(seq)'"}}"#
    }

    /// Posts `events` in one request.
    func post(_ url: String, _ events: [String]) async throws {
        let sent = try await ScorecastProcess.run(
            ["events", "send", "--url", url, "--json", #"{"events": [\#(events.joined(separator: ","))]}"#],
            environment: ["SCORECAST_API_KEY": key])
        #expect(sent.code == 0, "\(sent.stderr)")
    }

    /// Posts `events` in one request until it is accepted, as a feed retries through an outage
    /// (the events' ids make a repeat harmless).
    func postUntilAccepted(_ url: String, _ events: [String]) async throws {
        try await eventually("the feed's POST is accepted") {
            let sent = try await ScorecastProcess.run(
                ["events", "send", "--url", url, "--json", #"{"events": [\#(events.joined(separator: ","))]}"#],
                environment: ["SCORECAST_API_KEY": key])
            return sent.code == 0
        }
    }

    /// Broadcasts APNs accepted for `game`'s channel, oldest first.
    func accepted(_ game: String) -> [SimulatorReceivedRequest] {
        e2e.simulator.receivedRequests().filter {
            $0.port == "send" && $0.header("apns-channel-id") == channels[game] && $0.status == 200
        }
    }

    /// Sends to `game`'s channel that APNs received at or after `since` (UNIX seconds).
    func sends(_ game: String, since: Double) -> [SimulatorReceivedRequest] {
        e2e.simulator.receivedRequests().filter { $0.port == "send" && $0.header("apns-channel-id") == channels[game] && $0.time >= since }
    }

    /// Sends APNs received at or after `since` (UNIX seconds) that it did not accept.
    func failedSends(since: Double) -> [SimulatorReceivedRequest] {
        e2e.simulator.receivedRequests().filter { $0.port == "send" && $0.time >= since && $0.status != 200 }
    }

    /// Outbox rows whose backoff ends after the hang deadline: a test that waits for them can
    /// only see them sent through the circuit breaker's release (or its one probe).
    func heldBackPastHangDeadline() async throws -> Int {
        let seconds = Int(hangDeadline.components.seconds)
        return try await e2e.pool.query("SELECT 1 FROM outbox WHERE not_before > now() + \(seconds) * interval '1 second'").count
    }

    /// What the simulator's log says about one game, against what the feed sent.
    struct Verdict: CustomStringConvertible {
        /// Whether the last accepted payload carries the newest score.
        var newestStateShown: Bool
        /// Alerting events never announced.
        var alertsLost: [String]
        /// Announcements beyond the first of each alert.
        var duplicates: Int
        /// Whether the announcements came in event order (first occurrences).
        var inOrder: Bool
        /// When the last accepted broadcast arrived (UNIX seconds).
        var lastAcceptedAt: Double

        var description: String {
            "newest shown \(newestStateShown), lost \(alertsLost), duplicates \(duplicates), in order \(inOrder)"
        }
    }

    /// Judges `game`: its newest score is `home`–`away`, its alerts are `players`, in order.
    func verdict(_ game: String, home: Int, away: Int = 0, players: [String]) throws -> Verdict {
        let received = accepted(game)
        var announced: [String] = []
        var lastState: (Int?, Int?) = (nil, nil)
        for request in received {
            let aps = try JSONParser().parse(request.body)["aps"]
            lastState = (aps?["content-state"]?["homeScore"]?.integerValue, aps?["content-state"]?["awayScore"]?.integerValue)
            // The player is the first name in the title (a goal's title leads with its minute, `12'`).
            let names = aps?["alert"]?["title"]?["loc-args"]?.arrayValue?.compactMap(\.stringValue) ?? []
            if let player = names.first(where: { !$0.hasSuffix("'") }) { announced.append(player) }
        }
        var firsts: [String] = []
        for player in announced where !firsts.contains(player) { firsts.append(player) }
        return Verdict(
            newestStateShown: lastState.0 == home && lastState.1 == away,
            alertsLost: players.filter { !announced.contains($0) },
            duplicates: announced.count - firsts.count,
            inOrder: firsts == players.filter { announced.contains($0) },
            lastAcceptedAt: received.last?.time ?? 0)
    }

    /// Whether the outbox is empty and every game's last accepted payload shows `home`–0.
    func caughtUp(home: Int) async throws -> Bool {
        guard try await e2e.pool.query("SELECT 1 FROM outbox").isEmpty else { return false }
        return try Self.games.allSatisfy { try verdict($0, home: home, players: []).newestStateShown }
    }

    /// Stops `serve` with SIGTERM and expects a clean exit.
    func stop(_ process: ScorecastProcess) async {
        process.signal(SIGTERM)
        #expect(await process.waitForExit(timeout: .seconds(20)) == 0, "\(process.errorOutput)")
    }
}
