import APNsSimulator
import Foundation
import Testing

/// `POST /3/device/<token>` for push-to-start (apns.md §7).
@Suite struct DevicePushTests {
    static let deviceToken = String(repeating: "ab12", count: 40) // 160 hex digits, like a push-to-start token
    static let startPayload = #"{"aps":{"timestamp":1764453600,"event":"start","content-state":{"homeScore":0},"attributes-type":"GameAttributes","attributes":{"home":"ARS"},"alert":{"title":"Kick-off","body":"ARS v CHE"},"input-push-channel":"dHN0LXNyY2gtY2hubA=="}}"#

    func push(_ sim: SimulatorFixture, token: String = deviceToken, topic: String? = nil, pushType: String? = "liveactivity",
              payload: String = startPayload, extra: [String] = []) async throws -> CurlResponse {
        var arguments = ["--header", "authorization: bearer \(try sim.token())"]
        arguments += ["--header", "apns-topic: \(topic ?? "\(sim.bundleID).push-type.liveactivity")"]
        if let pushType { arguments += ["--header", "apns-push-type: \(pushType)"] }
        arguments += ["--header", "apns-priority: 10"] + extra
        return try await sim.curl(arguments + ["--data-binary", payload, "\(sim.sendURL)/3/device/\(token)"])
    }

    @Test func pushToStartIsAccepted() async throws {
        try await SimulatorFixture.with { sim in
            let id = UUID().uuidString.lowercased()
            let response = try await push(sim, extra: ["--header", "apns-id: \(id)"])
            #expect(response.status == 200)
            #expect(response.headers["apns-id"] == id)
            #expect(response.headers["apns-unique-id"].map(isLowercaseUUID) == true)
            let logged = try #require(sim.simulator.receivedRequests().last)
            #expect(logged.notes.isEmpty, "a complete start payload raises no notes: \(logged.notes)")
        }
    }

    @Test func tokenAndTopicRules() async throws {
        try await SimulatorFixture.with { sim in
            #expect(try await push(sim, token: "xyz").reason == "BadDeviceToken")
            #expect(try await push(sim, token: String(repeating: "a", count: 63)).reason == "BadDeviceToken")
            let noTopic = try await sim.curl(["--header", "authorization: bearer \(try sim.token())", "--header", "apns-push-type: liveactivity",
                                              "--data", "{}", "\(sim.sendURL)/3/device/\(Self.deviceToken)"])
            #expect(noTopic.reason == "MissingTopic")
            #expect(try await push(sim, topic: sim.bundleID).reason == "DeviceTokenNotForTopic")
            #expect(try await push(sim, pushType: "shout").reason == "InvalidPushType")
            let foreign = try await push(sim, topic: "com.someone.else.push-type.liveactivity")
            #expect(foreign.status == 403)
            #expect(foreign.reason == "TopicMismatch")
            let badID = try await push(sim, extra: ["--header", "apns-id: nope"])
            #expect(badID.reason == "BadMessageId")
        }
    }

    @Test func devicePayloadLimitIsFourKilobytes() async throws {
        try await SimulatorFixture.with { sim in
            let prefix = #"{"aps":{"alert":""#
            let suffix = #""}}"#
            let fits = prefix + String(repeating: "y", count: 4096 - prefix.utf8.count - suffix.utf8.count) + suffix
            #expect(try await push(sim, pushType: "alert", payload: fits, topic: sim.bundleID).status == 200)
            let over = prefix + String(repeating: "y", count: 4097 - prefix.utf8.count - suffix.utf8.count) + suffix
            let refused = try await push(sim, pushType: "alert", payload: over, topic: sim.bundleID)
            #expect(refused.status == 413)
            #expect(refused.reason == "PayloadTooLarge")
        }
    }

    @Test func unregisteredTokenIsGone() async throws {
        try await SimulatorFixture.with { sim in
            try sim.simulator.unregisterDeviceToken(Self.deviceToken, timestampMilliseconds: 1_764_453_600_000)
            let response = try await push(sim)
            #expect(response.status == 410)
            #expect(response.reason == "Unregistered")
            #expect(response.json?["timestamp"] as? Int == 1_764_453_600_000)
        }
    }

    @Test func incompleteStartPayloadIsNoted() async throws {
        try await SimulatorFixture.with { sim in
            #expect(try await push(sim, payload: #"{"aps":{"timestamp":1764453600,"event":"start"}}"#).status == 200)
            let notes = try #require(sim.simulator.receivedRequests().last?.notes)
            #expect(notes.contains("aps.attributes-type is required to start an activity"))
            #expect(notes.contains("aps.alert is required to start an activity"))
        }
    }
}

extension DevicePushTests {
    /// `push` with the topic argument last, for the payload tests.
    func push(_ sim: SimulatorFixture, pushType: String?, payload: String, topic: String) async throws -> CurlResponse {
        try await push(sim, token: Self.deviceToken, topic: topic, pushType: pushType, payload: payload)
    }
}
