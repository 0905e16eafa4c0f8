import APNsSimulator
import Foundation
import Testing

/// `POST /4/broadcasts/apps/<bundleId>` (apns.md §3) through the real `curl`.
@Suite struct BroadcastTests {
    @Test func appleBroadcastIsAccepted() async throws {
        try await SimulatorFixture.with { sim in
            let channelID = try await sim.createChannel(policy: 0)
            let requestID = UUID().uuidString.lowercased()
            let response = try await sim.curl([
                "-v",
                "--header", "apns-channel-id: \(channelID)",
                "--header", "apns-push-type: liveactivity",
                "--header", "apns-priority: 10",
                "--header", "apns-expiration: 0",
                "--header", "apns-request-id: \(requestID)",
                "--header", "authorization: bearer \(try sim.token())",
                "--data", SimulatorFixture.updatePayload,
                "--http2", "\(sim.sendURL)/4/broadcasts/apps/\(sim.bundleID)",
            ])
            #expect(response.status == 200)
            #expect(response.body.isEmpty)
            #expect(response.headers["apns-request-id"] == requestID)
            let uniqueID = try #require(response.headers["apns-unique-id"])
            #expect(isLowercaseUUID(uniqueID))
        }
    }

    @Test func mostRecentChannelTakesAnExpirationWithinEightHours() async throws {
        try await SimulatorFixture.with { sim in
            let channelID = try await sim.createChannel(policy: 1)
            let now = Int(Date().timeIntervalSince1970)
            #expect(try await sim.broadcast(channelID: channelID, expiration: String(now + 3600)).status == 200)
            #expect(try await sim.broadcast(channelID: channelID, expiration: "0").status == 200)
            let tooFar = try await sim.broadcast(channelID: channelID, expiration: String(now + 9 * 3600))
            #expect(tooFar.status == 400)
            #expect(tooFar.reason == "BadExpirationDate")
        }
    }

    @Test func nonZeroExpirationOnNoMessageStoredChannel() async throws {
        try await SimulatorFixture.with { sim in
            let channelID = try await sim.createChannel(policy: 0)
            let response = try await sim.broadcast(channelID: channelID, expiration: String(Int(Date().timeIntervalSince1970) + 600))
            #expect(response.status == 400)
            #expect(response.reason == "BadExpirationDate")
            #expect(response.headers["apns-request-id"] != nil)
            #expect(response.headers["apns-unique-id"] == nil)
        }
    }

    @Test func headerRules() async throws {
        try await SimulatorFixture.with { sim in
            let channelID = try await sim.createChannel(policy: 0)
            let missingChannel = try await sim.broadcast(channelID: nil)
            #expect(missingChannel.status == 400)
            #expect(missingChannel.reason == "MissingChannelId")
            #expect(try await sim.broadcast(channelID: channelID, pushType: "alert").reason == "InvalidPushType")
            #expect(try await sim.broadcast(channelID: channelID, pushType: nil).reason == "MissingPushType")
            #expect(try await sim.broadcast(channelID: channelID, priority: "7").reason == "BadPriority")
            #expect(try await sim.broadcast(channelID: channelID, priority: nil).reason == "BadPriority")
            #expect(try await sim.broadcast(channelID: channelID, priority: "1").reason == "BadPriority", "priority 1 is off by default")
            #expect(try await sim.broadcast(channelID: channelID, expiration: nil).reason == "BadExpirationDate")
            #expect(try await sim.broadcast(channelID: channelID, expiration: "soon").reason == "BadExpirationDate")
            #expect(try await sim.broadcast(channelID: "%%%").reason == "BadChannelId")
            #expect(try await sim.broadcast(channelID: channelID, priority: "5").status == 200)
        }
    }

    @Test func priorityOneCanBeAllowed() async throws {
        try await SimulatorFixture.with(configure: { $0.allowsPriorityOneBroadcasts = true }) { sim in
            let channelID = try await sim.createChannel()
            #expect(try await sim.broadcast(channelID: channelID, priority: "1").status == 200)
        }
    }

    @Test func liveActivitySuffixInPathIsTopicDisallowed() async throws {
        try await SimulatorFixture.with { sim in
            let channelID = try await sim.createChannel()
            let response = try await sim.broadcast(channelID: channelID, bundleID: "\(sim.bundleID).push-type.liveactivity")
            #expect(response.status == 400)
            #expect(response.reason == "TopicDisallowed")
        }
    }

    @Test func unknownChannelIsChannelNotRegistered() async throws {
        try await SimulatorFixture.with { sim in
            let response = try await sim.broadcast(channelID: "dHN0LXNyY2gtY2hubA==")
            #expect(response.status == 400)
            #expect(response.reason == "ChannelNotRegistered")
        }
    }

    @Test func payloadRules() async throws {
        try await SimulatorFixture.with { sim in
            let channelID = try await sim.createChannel()
            // Exactly 5,120 bytes is allowed; 5,121 is not.
            let prefix = #"{"aps":{"event":"update","timestamp":1,"content-state":{"pad":""#
            let suffix = #""}}}"#
            let fits = prefix + String(repeating: "x", count: 5120 - prefix.utf8.count - suffix.utf8.count) + suffix
            #expect(fits.utf8.count == 5120)
            #expect(try await sim.broadcast(channelID: channelID, payload: fits).status == 200)
            let tooLarge = prefix + String(repeating: "x", count: 5121 - prefix.utf8.count - suffix.utf8.count) + suffix
            #expect(tooLarge.utf8.count == 5121)
            let refused = try await sim.broadcast(channelID: channelID, payload: tooLarge)
            #expect(refused.status == 413)
            #expect(refused.reason == "PayloadTooLarge")

            #expect(try await sim.broadcast(channelID: channelID, payload: "").reason == "PayloadEmpty")
            #expect(try await sim.broadcast(channelID: channelID, payload: #"{"aps":"#).reason == "BadRequestPayload")
            #expect(try await sim.broadcast(channelID: channelID, payload: "[1,2]").reason == "BadRequestPayload")
        }
    }

    @Test func wrongMethodAndTopicMismatch() async throws {
        try await SimulatorFixture.with { sim in
            let get = try await sim.curl(["--header", "authorization: bearer \(try sim.token())",
                                          "\(sim.sendURL)/4/broadcasts/apps/\(sim.bundleID)"])
            #expect(get.status == 405)
            #expect(get.reason == "MethodNotAllowed")
            let channelID = try await sim.createChannel()
            let otherApp = try await sim.broadcast(channelID: channelID, bundleID: "com.someone.else")
            #expect(otherApp.status == 403)
            #expect(otherApp.reason == "TopicMismatch")
        }
    }

    @Test func channelsBelongToTheirApp() async throws {
        let key = try await TeamKeys.shared.key()
        try await SimulatorFixture.with(configure: { $0.teams = [key.team(bundleIDs: ["com.example.scores", "com.example.other"])] }) { sim in
            let channelID = try await sim.createChannel()
            let elsewhere = try await sim.broadcast(channelID: channelID, bundleID: "com.example.other")
            #expect(elsewhere.reason == "ChannelNotRegistered")
        }
    }
}
