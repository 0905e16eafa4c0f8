import EndToEndSupport
import APNsSimulator
import Foundation
import HTTPServer
import Postgres
import Testing
import TestSupport

/// The device side through the built binary: devices registered over the app API, a game kicks
/// off, the simulator receives one valid push-to-start per following device with the right
/// input, token-path activities receive every update and the end, dead tokens are pruned.
@Suite("End to end: devices, kick-off and activity tokens through the binary", .serialized)
struct DeviceEndToEndTests {
    static let bundleID = "com.example.live"

    static func token(_ n: Int) -> String { String(format: "%064x", n) }

    static func event(_ id: String, seq: Int, minute: Int, kind: String, _ extra: String = "") -> String {
        #"{"id": "\#(id)", "game": "ars-che", "seq": \#(seq), "occurredAt": "2025-11-29T20:\#(String(format: "%02d", minute)):00Z", "kind": "\#(kind)"\#(extra)}"#
    }

    @Test("devices register, the start event starts their activities once, token-path devices get every update and the end")
    func kickOffThroughTheBinary() async throws {
        try await RegistryE2E.with { e2e in
            let (channelID, feedKey) = try await DeliveryEndToEndTests.prepare(e2e)
            let created = try #require(try await e2e.json("apps", "client-key", Self.bundleID, "--name", "ios") as? [String: Any])
            let clientKey = try #require(created["key"] as? String)
            var environment = e2e.environment
            environment.merge(DeliveryEndToEndTests.settings) { _, new in new }
            environment["SCORECAST_DEVICE_POLL_MS"] = "100"
            let server = try ScorecastProcess(["serve", "--roles", "api,worker"], environment: environment)
            let url = try await DeliveryEndToEndTests.apiURL(server)

            func app(_ method: HTTPMethod, _ path: String, _ body: String? = nil) async throws -> (status: Int, json: [String: Any]) {
                let answer = try await TestClient.live(url).execute(
                    method, "/v1/apps/\(Self.bundleID)/devices/\(path)",
                    headers: ["Authorization": "Bearer \(clientKey)", "Content-Type": "application/json"], body: Array((body ?? "").utf8))
                return (answer.status, answer.body.isEmpty ? [:] : try answer.json())
            }
            func register(_ install: String, token: Int, os: String, follow: String) async throws {
                let registered = try await app(.put, install, #"{"environment": "sandbox", "pushToStartToken": "\#(Self.token(token))", "osVersion": "\#(os)"}"#)
                #expect(registered.status == 201, "\(registered.json)")
                #expect(try await app(.put, "\(install)/follows/\(follow)").status == 201)
            }
            try await register("channel-device", token: 1, os: "18.2", follow: "team/Arsenal")
            try await register("token-device", token: 2, os: "17.4", follow: "league/EPL")
            try await register("dead-device", token: 3, os: "18.0", follow: "game/ars-che")
            try await register("other-device", token: 4, os: "18.0", follow: "team/Spurs")
            try e2e.simulator.unregisterDeviceToken(Self.token(3))

            let game = try await TestClient.live(url).get("/v1/games/ars-che?bundle-id=\(Self.bundleID)&environment=sandbox")
            #expect(game.status == 200)
            #expect((try jsonObject(game.body)["channel"] as? [String: Any])?["id"] as? String == channelID)

            func post(_ json: String) async throws {
                let sent = try await ScorecastProcess.run(["events", "send", "--url", url, "--json", json], environment: ["SCORECAST_API_KEY": feedKey])
                #expect(sent.code == 0, "\(sent.stderr)")
            }
            func received() -> [String: SimulatorDeviceToken] {
                Dictionary(uniqueKeysWithValues: e2e.simulator.deviceTokens().map { ($0.token, $0) })
            }
            // The start event makes the game live: its activities are started.
            try await post(Self.event("e1", seq: 1, minute: 0, kind: "start", #", "scoreboard": {"home": 0, "away": 0, "period": "1H"}"#))
            try await eventually("both following devices are started") {
                received()[Self.token(1)]?.starts == 1 && received()[Self.token(2)]?.starts == 1
            }
            #expect(received()[Self.token(1)]?.lastStartInput == channelID)
            #expect(received()[Self.token(2)]?.lastStartInput == "token")
            #expect(received()[Self.token(4)] == nil)
            let starts = e2e.simulator.receivedRequests().filter { $0.path.hasPrefix("/3/device/") && $0.status == 200 }
            #expect(starts.count == 2)
            #expect(starts.allSatisfy { $0.notes.isEmpty && $0.header("apns-topic") == "\(Self.bundleID).push-type.liveactivity" })
            try await eventually("the dead push-to-start token is pruned") {
                try await app(.get, "dead-device").json["pushToStartTokenPrunedReason"] as? String == "Unregistered"
            }

            // The iOS 17 activity hands over its own token (and rotates it once); another is already dead.
            #expect(try await app(.put, "token-device/activities/ars-che", #"{"pushToken": "\#(Self.token(20))"}"#).status == 200)
            #expect(try await app(.put, "token-device/activities/ars-che", #"{"pushToken": "\#(Self.token(21))"}"#).status == 200)
            #expect(try await app(.put, "dead-device/activities/ars-che", #"{"pushToken": "\#(Self.token(30))"}"#).status == 200)
            try e2e.simulator.unregisterDeviceToken(Self.token(30))
            try await post(Self.event("e2", seq: 2, minute: 12, kind: "score", #", "team": "home", "scoreboard": {"home": 1}"#))
            try await eventually("the goal reaches the activity token") {
                e2e.simulator.receivedRequests().contains { $0.path == "/3/device/\(Self.token(21))" && $0.body.contains("\"homeScore\":1") }
            }
            try await post(Self.event("e3", seq: 3, minute: 55, kind: "final"))
            try await eventually("the end reaches the activity token") { received()[Self.token(21)]?.ends == 1 }
            // Token 20 was valid for a moment (a round may have sent it the state current then),
            // but nothing after its rotation: neither the goal nor the end.
            #expect(!e2e.simulator.receivedRequests().contains { $0.path == "/3/device/\(Self.token(20))" && $0.body.contains("\"homeScore\":1") },
                    "the rotated-out token gets no update after its rotation")
            #expect((received()[Self.token(20)]?.ends ?? 0) == 0, "the rotated-out token gets no end")
            #expect(received()[Self.token(1)]?.updates == 0, "channel devices get updates by broadcast, not by token")
            try await eventually("the dead activity token is pruned") {
                try await e2e.pool.query("SELECT 1 FROM activity_tokens WHERE token = \(Self.token(30)) AND status = 'pruned'").count == 1
            }

            let progress = try jsonObject(try await TestClient.live(url).get("/v1/stats/devices").body)
            #expect(progress["started"] as? Int == 2)
            #expect((progress["failedByReason"] as? [String: Int]) == ["Unregistered": 1])
            #expect(progress["pushToStartTokensPruned"] as? Int == 1)
            #expect(progress["activityTokensPruned"] as? Int == 1)
            let metrics = String(decoding: try await TestClient.live(url).get("/metrics").body, as: UTF8.self)
            #expect(metrics.contains(#"scorecast_push_to_start_total{outcome="started"} 2"#), "\(metrics)")
            #expect(metrics.contains(#"scorecast_device_tokens_pruned_total{kind="push-to-start",reason="Unregistered"} 1"#))
            server.signal(SIGTERM)
            #expect(await server.waitForExit() == 0, "\(server.errorOutput)")
        }
    }
}
