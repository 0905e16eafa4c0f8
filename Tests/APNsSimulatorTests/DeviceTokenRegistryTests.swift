import APNsSimulator
import Foundation
import Testing

/// The simulator's device-token registry: what each token received (apns.md §7: push-to-start
/// and per-activity pushes on `<bundle>.push-type.liveactivity`), tokens marked unregistered
/// (`410 Unregistered` with a timestamp), and the admin API that lists them.
@Suite struct DeviceTokenRegistryTests {
    static let startToken = String(repeating: "0a1b", count: 20)
    static let activityToken = String(repeating: "c0de", count: 16)
    static let deadToken = String(repeating: "dead", count: 16)

    func push(_ sim: SimulatorFixture, token: String, aps: String, topic: String? = nil) async throws -> CurlResponse {
        try await sim.curl([
            "--header", "authorization: bearer \(try sim.token())",
            "--header", "apns-topic: \(topic ?? sim.bundleID + ".push-type.liveactivity")",
            "--header", "apns-push-type: liveactivity", "--header", "apns-priority: 10",
            "--data-binary", #"{"aps":\#(aps)}"#, "\(sim.sendURL)/3/device/\(token)",
        ])
    }

    @Test func tokensAreListedWithWhatTheyReceived() async throws {
        try await SimulatorFixture.with { sim in
            let start = #"{"timestamp":1764453600,"event":"start","content-state":{"homeScore":0},"attributes-type":"GameAttributes","attributes":{"gameID":"g1"},"alert":{"title":"Kick-off","body":"ARS v CHE"},"input-push-channel":"Y2hhbm5lbA=="}"#
            #expect(try await push(sim, token: Self.startToken, aps: start).status == 200)
            let tokenStart = start.replacingOccurrences(of: #""input-push-channel":"Y2hhbm5lbA==""#, with: #""input-push-token":1"#)
            #expect(try await push(sim, token: Self.activityToken.uppercased(), aps: tokenStart).status == 200)
            #expect(try await push(sim, token: Self.activityToken, aps: #"{"timestamp":1764453700,"event":"update","content-state":{"homeScore":1}}"#).status == 200)
            #expect(try await push(sim, token: Self.activityToken, aps: #"{"timestamp":1764453800,"event":"end","content-state":{"homeScore":1},"dismissal-date":1764453800}"#).status == 200)
            // Refused pushes are not counted: the wrong topic never reaches the device.
            #expect(try await push(sim, token: Self.activityToken, aps: start, topic: sim.bundleID).reason == "DeviceTokenNotForTopic")

            try sim.simulator.unregisterDeviceToken(Self.deadToken, timestampMilliseconds: 1_764_453_600_000)
            let gone = try await push(sim, token: Self.deadToken, aps: start)
            #expect(gone.status == 410)
            #expect(gone.reason == "Unregistered")

            let tokens = Dictionary(uniqueKeysWithValues: sim.simulator.deviceTokens().map { ($0.token, $0) })
            #expect(tokens.count == 3)
            let started = try #require(tokens[Self.startToken])
            #expect(started.bundleID == sim.bundleID)
            #expect(started.starts == 1 && started.accepted == 1)
            #expect(started.lastStartInput == "Y2hhbm5lbA==")
            let activity = try #require(tokens[Self.activityToken])
            #expect(activity.accepted == 3 && activity.starts == 1 && activity.updates == 1 && activity.ends == 1)
            #expect(activity.lastStartInput == "token")
            #expect(activity.lastEvent == "end")
            let dead = try #require(tokens[Self.deadToken])
            #expect(dead.accepted == 0 && dead.unregisteredAt == 1_764_453_600_000)

            let listed = try await sim.admin("GET", "/device-tokens")
            #expect(listed.status == 200)
            let rows = try #require(listed.json?["tokens"] as? [[String: Any]])
            #expect(rows.compactMap { $0["token"] as? String } == [Self.startToken, Self.activityToken, Self.deadToken].sorted())
            #expect(rows.first { $0["token"] as? String == Self.deadToken }?["unregisteredAt"] as? Int == 1_764_453_600_000)

            #expect(try await sim.admin("POST", "/reset").status == 204)
            #expect(sim.simulator.deviceTokens().isEmpty)
        }
    }
}
