import APNs
import APNsSimulator
import EndToEndSupport
import Foundation
import JSON
import Postgres
import Testing
import TestSupport

/// The worker pool in the built binary: a goal posted to `serve`, sent to the APNs simulator
/// (in this process, over TLS), with `serve` processes killed and stopped on the way.
@Suite("End to end: delivery through the binary", .serialized)
struct DeliveryEndToEndTests {
    static let goal = #"{"id": "goal-1", "game": "ars-che", "seq": 1, "occurredAt": "2025-11-29T20:00:00Z", "kind": "score", "team": "home", "player": "Saka", "scoreboard": {"home": 1, "away": 0, "period": "1H", "clock": "12'"}}"#

    /// Short leases and polling, so a rescue takes seconds; a long APNs deadline, so that a
    /// black-holed send is still in flight when the test kills or stops its process, however
    /// loaded the machine.
    static let settings = [
        "SCORECAST_LEASE_SECONDS": "2", "SCORECAST_POLL_INTERVAL_MS": "100", "SCORECAST_SHUTDOWN_GRACE_SECONDS": "2",
        "SCORECAST_APNS_TIMEOUT_MS": "60000", "SCORECAST_LOG_LEVEL": "info", "SCORECAST_HTTP_PORT": "0",
    ]

    /// An app, a game, a channel bound to it and a feed key; returns the APNs channel id and the key.
    static func prepare(_ e2e: RegistryE2E) async throws -> (channelID: String, key: String) {
        try await e2e.addApp("com.example.live")
        try await e2e.addGame("ars-che")
        let created = try #require(try await e2e.json("channels", "create", "--game", "ars-che", "--app", "com.example.live") as? [String: Any])
        let channelID = try #require(created["channelId"] as? String)
        let keys = try await e2e.run("keys", "create", "--name", "feed")
        let key = try #require(
            keys.stdout.split(whereSeparator: { $0 == " " || $0 == "\n" }).first { $0.hasPrefix("sck_") }.map(String.init),
            "\(keys.stderr)")
        return (channelID, key)
    }

    /// Starts `serve` with `roles`; returns it and its API URL when it has one.
    static func serve(_ e2e: RegistryE2E, roles: String) throws -> ScorecastProcess {
        var environment = e2e.environment
        environment.merge(settings) { _, new in new }
        return try ScorecastProcess(["serve", "--roles", roles], environment: environment)
    }

    static func apiURL(_ process: ScorecastProcess) async throws -> String {
        let line = try await process.waitForLine(containing: "HTTP API listening")
        return try #require(line.firstMatch(of: /http:\/\/127\.0\.0\.1:[0-9]+/).map { String($0.output) }, "\(line)")
    }

    static func broadcasts(_ e2e: RegistryE2E, to channelID: String) -> [SimulatorReceivedRequest] {
        e2e.simulator.receivedRequests().filter { $0.port == "send" && $0.header("apns-channel-id") == channelID }
    }

    static func postGoal(_ url: String, key: String) async throws {
        let sent = try await ScorecastProcess.run(["events", "send", "--url", url, "--json", goal], environment: ["SCORECAST_API_KEY": key])
        #expect(sent.code == 0, "\(sent.stderr)")
        #expect(sent.stdout.contains("accepted 1"), "\(sent.stdout)")
    }

    @Test("a goal posted to serve reaches the simulator with the headers apns.md requires, priority 10 and an alert")
    func aGoalIsBroadcast() async throws {
        try await RegistryE2E.with { e2e in
            let (channelID, key) = try await Self.prepare(e2e)
            let server = try Self.serve(e2e, roles: "api,worker")
            let url = try await Self.apiURL(server)
            // No latency bound here (the CLI's start-up alone can take seconds on a loaded
            // machine): the benchmark measures ingest-to-send; this checks what is sent.
            try await Self.postGoal(url, key: key)
            try await eventually("the goal is broadcast") { Self.broadcasts(e2e, to: channelID).contains { $0.status == 200 } }
            let request = try #require(Self.broadcasts(e2e, to: channelID).first)
            #expect(request.path == "/4/broadcasts/apps/com.example.live")
            #expect(request.header("apns-push-type") == "liveactivity")
            #expect(request.header("apns-priority") == "10")
            #expect(request.header("apns-expiration") == "0")
            #expect(request.header("apns-topic") == nil)
            #expect(request.body.contains("\"homeScore\":1") && request.body.contains("\"alert\""), "\(request.body)")
            try await eventually("the delivery is recorded") {
                try await e2e.pool.query("SELECT 1 FROM deliveries WHERE outcome = 'sent'").count == 1
            }
            server.signal(SIGTERM)
            #expect(await server.waitForExit() == 0, "\(server.errorOutput)")
        }
    }

    @Test("alerts queued behind the final whistle reach the simulator as updates, in order, before the one end")
    func alertsQueuedBehindTheFinalWhistleGoBeforeTheEnd() async throws {
        let secondGoal = #"{"id": "goal-2", "game": "ars-che", "seq": 2, "occurredAt": "2025-11-29T21:20:00Z", "kind": "score", "team": "home", "player": "Odegaard", "scoreboard": {"home": 2, "away": 0, "period": "2H", "clock": "89'"}}"#
        let fullTime = #"{"id": "full-time", "game": "ars-che", "seq": 3, "occurredAt": "2025-11-29T21:35:00Z", "kind": "final", "scoreboard": {"home": 2, "away": 0, "period": "FT"}}"#
        try await RegistryE2E.with { e2e in
            let (channelID, key) = try await Self.prepare(e2e)
            // The first goal's answer is held, so the rest queue behind it across the final whistle.
            try e2e.simulator.setFaults(SimulatorFaults(holdAnswers: true))
            let server = try Self.serve(e2e, roles: "api,worker")
            let url = try await Self.apiURL(server)
            try await Self.postGoal(url, key: key)
            try await eventually("the first goal is in flight, its answer held") { e2e.simulator.heldAnswerCount == 1 }
            for event in [secondGoal, fullTime] {
                let sent = try await ScorecastProcess.run(["events", "send", "--url", url, "--json", event], environment: ["SCORECAST_API_KEY": key])
                #expect(sent.code == 0, "\(sent.stderr)")
            }
            try await eventually("both alerts wait behind the one in flight") {
                try await e2e.pool.query("SELECT jsonb_array_length(alerts)::int8 AS n FROM outbox").first?.decode("n", as: Int.self) == 3
            }
            try e2e.simulator.setFaults(.none)
            try await eventually("every alert is sent") { try await e2e.pool.query("SELECT 1 FROM outbox").isEmpty }
            let accepted = try Self.broadcasts(e2e, to: channelID).filter { $0.status == 200 }.map { request in
                let aps = try #require(try JSONParser().parse(request.body)["aps"])
                return (
                    event: aps["event"]?.stringValue, alert: aps["alert"] != nil, home: aps["content-state"]?["homeScore"]?.integerValue,
                    timestamp: aps["timestamp"]?.integerValue ?? 0, dismissal: aps["dismissal-date"] != nil)
            }
            #expect(accepted.map(\.event) == ["update", "update", "end"], "\(accepted)")
            #expect(accepted.allSatisfy { $0.alert }, "every alert arrives: \(accepted)")
            #expect(accepted.map(\.home) == [1, 2, 2], "\(accepted)")
            #expect(accepted.map(\.dismissal) == [false, false, true], "\(accepted)")
            #expect(zip(accepted, accepted.dropFirst()).allSatisfy { $0.timestamp < $1.timestamp }, "the phone keeps each: \(accepted)")
            server.signal(SIGTERM)
            #expect(await server.waitForExit() == 0, "\(server.errorOutput)")
        }
    }

    @Test("alerts not yet accepted when APNs says ChannelNotRegistered go on the recreated channel, in order, once; the app API names it")
    func alertsOutliveAGoneChannel() async throws {
        let secondGoal = #"{"id": "goal-2", "game": "ars-che", "seq": 2, "occurredAt": "2025-11-29T20:30:00Z", "kind": "score", "team": "home", "player": "Odegaard", "scoreboard": {"home": 2, "away": 0, "period": "1H", "clock": "30'"}}"#
        try await RegistryE2E.with { e2e in
            let teamKey = try await e2e.addApp("com.example.live")
            try await e2e.addGame("ars-che")
            let ensured = try await e2e.run("channels", "ensure", "--game", "ars-che")
            #expect(ensured.code == 0, "\(ensured.stderr)")
            let oldID = try #require(e2e.simulatorChannels("com.example.live").first)
            let keys = try await e2e.run("keys", "create", "--name", "feed")
            let key = try #require(
                keys.stdout.split(whereSeparator: { $0 == " " || $0 == "\n" }).first { $0.hasPrefix("sck_") }.map(String.init))
            // The channel vanishes at APNs behind the registry's back.
            let client = try APNsClientFactory.client(e2e.endpoints)
            #expect(try await client.deleteChannel(bundleID: "com.example.live", channelID: oldID, credentials: try teamKey.credentials()).status == 204)
            await client.shutdown()
            // The first goal's answer (ChannelNotRegistered) is held while the second queues behind it.
            try e2e.simulator.setFaults(SimulatorFaults(holdAnswers: true))
            var environment = e2e.environment
            environment.merge(Self.settings) { _, new in new }
            environment["SCORECAST_POLLER_ENSURE_SECONDS"] = "1"
            let server = try ScorecastProcess(["serve", "--roles", "api,worker,poller"], environment: environment)
            let url = try await Self.apiURL(server)
            try await Self.postGoal(url, key: key)
            try await eventually("the first goal is in flight, its answer held") { e2e.simulator.heldAnswerCount == 1 }
            let sent = try await ScorecastProcess.run(["events", "send", "--url", url, "--json", secondGoal], environment: ["SCORECAST_API_KEY": key])
            #expect(sent.code == 0, "\(sent.stderr)")
            try await eventually("the second goal waits behind the first") {
                try await e2e.pool.query("SELECT jsonb_array_length(alerts)::int8 AS n FROM outbox").first?.decode("n", as: Int.self) == 2
            }
            try e2e.simulator.setFaults(.none)
            try await eventually("a new channel is created for the game") {
                let channels = e2e.simulatorChannels("com.example.live")
                return channels.count == 1 && !channels.contains(oldID)
            }
            let newID = try #require(e2e.simulatorChannels("com.example.live").first)
            try await eventually("both goals reach the new channel") {
                let pending = try await e2e.pool.query("SELECT 1 FROM outbox").count
                return pending == 0 && Self.broadcasts(e2e, to: newID).filter { $0.status == 200 && $0.body.contains("\"alert\"") }.count >= 2
            }
            #expect(Self.broadcasts(e2e, to: oldID).map(\.reason) == ["ChannelNotRegistered"])
            let alerts = try Self.broadcasts(e2e, to: newID).filter { $0.status == 200 }.compactMap { request -> String? in
                let aps = try #require(try JSONParser().parse(request.body)["aps"])
                return aps["alert"]?["title"]?["loc-args"]?.arrayValue?.compactMap(\.stringValue).first { !$0.hasSuffix("'") }
            }
            #expect(alerts == ["Saka", "Odegaard"], "each alert once, in order, on the new channel")
            let answer = try await TestClient.live(url).get("/v1/games/ars-che/channels?bundle-id=com.example.live")
            #expect(answer.status == 200)
            let listed = (try jsonObject(answer.body)["channels"] as? [[String: Any]])?.compactMap { $0["channelId"] as? String }
            #expect(listed == [newID], "the app API names the game's current channel")
            server.signal(SIGTERM)
            #expect(await server.waitForExit() == 0, "\(server.errorOutput)")
        }
    }

    @Test("a worker killed with SIGKILL mid-send: another process delivers after the lease expires; nothing lost")
    func aKilledWorkerIsReplaced() async throws {
        try await RegistryE2E.with { e2e in
            let (channelID, key) = try await Self.prepare(e2e)
            try e2e.simulator.setFaults(SimulatorFaults(blackHole: true))
            let doomed = try Self.serve(e2e, roles: "api,worker")
            try await Self.postGoal(try await Self.apiURL(doomed), key: key)
            try await eventually("the send is in flight") { !Self.broadcasts(e2e, to: channelID).isEmpty }
            doomed.signal(SIGKILL)
            #expect(await doomed.waitForExit() != nil)
            let held = try await e2e.pool.query("SELECT lease_owner, lease_expires_at FROM outbox")
            #expect(held.count == 1)
            #expect(try held.first?.decode("lease_owner", as: String?.self) != nil, "the killed worker's lease stays behind")
            let leaseEnds = try #require(try held.first?.decode("lease_expires_at", as: Date?.self))

            try e2e.simulator.setFaults(.none)
            let rescuer = try Self.serve(e2e, roles: "worker")
            try await eventually("the rescuer delivers") { Self.broadcasts(e2e, to: channelID).contains { $0.status == 200 } }
            let received = Self.broadcasts(e2e, to: channelID)
            #expect(received.map(\.outcome) == ["ignored", "answered"])
            #expect(received.last?.body == received.first?.body)
            #expect((received.last?.time ?? 0) >= leaseEnds.timeIntervalSince1970 - 0.2)
            try await eventually("the outbox is empty and the delivery recorded") {
                let pending = try await e2e.pool.query("SELECT 1 FROM outbox").count
                let sent = try await e2e.pool.query("SELECT 1 FROM deliveries WHERE outcome = 'sent'").count
                return pending == 0 && sent == 1
            }
            rescuer.signal(SIGTERM)
            #expect(await rescuer.waitForExit() == 0, "\(rescuer.errorOutput)")
        }
    }

    @Test("SIGTERM during a send that never ends: serve stops within its grace and releases the lease")
    func sigtermReleasesTheLease() async throws {
        try await RegistryE2E.with { e2e in
            let (channelID, key) = try await Self.prepare(e2e)
            try e2e.simulator.setFaults(SimulatorFaults(blackHole: true))
            let server = try Self.serve(e2e, roles: "api,worker")
            try await Self.postGoal(try await Self.apiURL(server), key: key)
            try await eventually("the send is in flight") { !Self.broadcasts(e2e, to: channelID).isEmpty }
            server.signal(SIGTERM)
            // Stopped at its 2 s grace, not when the 60 s APNs deadline ended the send: that
            // would have counted an attempt (checked below), so no wall-clock bound is needed.
            #expect(await server.waitForExit(timeout: hangDeadline) == 0, "\(server.errorOutput)")
            let row = try #require(try await e2e.pool.query("SELECT lease_owner, attempts FROM outbox").first)
            #expect(try row.decode("lease_owner", as: String?.self) == nil)
            #expect(try row.decode("attempts", as: Int.self) == 0)
            let deliveries = try await e2e.pool.query("SELECT outcome, reason FROM deliveries").map {
                "\(try $0.decode("outcome", as: String.self)) \(try $0.decode("reason", as: String?.self) ?? "-")"
            }
            #expect(deliveries.isEmpty, "\(deliveries)\n\(server.errorOutput)")
        }
    }
}
