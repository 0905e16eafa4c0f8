import APNsSimulator
import Foundation
import Testing

/// The admin API (plain HTTP/1.1 JSON) and the in-process control methods it mirrors.
@Suite struct AdminAPITests {
    @Test func receivedRequestsAreListedWithAuthorizationRedacted() async throws {
        try await SimulatorFixture.with { sim in
            let token = try sim.token()
            let channelID = try await sim.createChannel(token: token)
            _ = try await sim.broadcast(channelID: channelID, token: token)
            _ = try await sim.broadcast(channelID: channelID, expiration: "12345", token: token)

            let listed = try await sim.admin("GET", "/requests")
            #expect(listed.status == 200)
            #expect(!listed.body.contains(token), "the provider token must never be shown")
            #expect(!listed.body.contains(token.split(separator: ".")[2]), "nor its signature")
            let requests = try #require(listed.json?["requests"] as? [[String: Any]])
            #expect(listed.json?["total"] as? Int == 3)
            #expect(requests.count == 3)

            let broadcast = requests[1]
            #expect(broadcast["port"] as? String == "send")
            #expect(broadcast["method"] as? String == "POST")
            #expect(broadcast["path"] as? String == "/4/broadcasts/apps/\(sim.bundleID)")
            #expect(broadcast["status"] as? Int == 200)
            let headers = try #require(broadcast["headers"] as? [[String: String]])
            #expect(headers.first { $0["name"] == "authorization" }?["value"] == "bearer <redacted>")
            #expect(headers.first { $0["name"] == "apns-channel-id" }?["value"] == channelID)
            let payload = try #require(broadcast["payload"] as? [String: Any])
            let aps = try #require(payload["aps"] as? [String: Any])
            #expect(aps["event"] as? String == "update")
            let responseHeaders = try #require(broadcast["responseHeaders"] as? [[String: String]])
            #expect(responseHeaders.contains { $0["name"] == "apns-unique-id" })

            let failed = requests[2]
            #expect(failed["status"] as? Int == 400)
            #expect(failed["reason"] as? String == "BadExpirationDate")

            // Paging by sequence.
            let later = try await sim.admin("GET", "/requests?since=2")
            #expect((later.json?["requests"] as? [[String: Any]])?.count == 1)

            // The in-process view agrees and is redacted too.
            let inProcess = sim.simulator.receivedRequests()
            #expect(inProcess.count == 3)
            #expect(inProcess.allSatisfy { $0.header("authorization") == "bearer <redacted>" })

            let stats = try await sim.admin("GET", "/stats")
            let answers = try #require(stats.json?["answers"] as? [String: Int])
            #expect(answers == ["201": 1, "200": 1, "400 BadExpirationDate": 1])
        }
    }

    @Test func broadcastPayloadNotes() async throws {
        try await SimulatorFixture.with { sim in
            let channelID = try await sim.createChannel()
            _ = try await sim.broadcast(channelID: channelID, payload: #"{"aps":{"event":"start","timestamp":1764453600000,"attributes":{}}}"#)
            let notes = try #require(sim.simulator.receivedRequests().last?.notes)
            #expect(notes.contains("aps.event is \"start\": a broadcast can only update or end an activity"))
            #expect(notes.contains("aps.timestamp looks like milliseconds; APNs expects UNIX seconds"))
            #expect(notes.contains("aps.attributes belongs to push-to-start, not to a broadcast"))
        }
    }

    @Test func channelsTeamsAndChannelLimitThroughAdmin() async throws {
        try await SimulatorFixture.with { sim in
            let channelID = try await sim.createChannel(policy: 1)
            let channels = try await sim.admin("GET", "/channels")
            let listed = try #require(channels.json?["channels"] as? [[String: Any]])
            #expect(listed.first?["id"] as? String == channelID)
            #expect(listed.first?["messageStoragePolicy"] as? Int == 1)
            #expect(listed.first?["bundleID"] as? String == sim.bundleID)

            #expect(try await sim.admin("POST", "/channel-limit", body: #"{"limit": 1}"#).status == 200)
            let refused = try await sim.curl([
                "--header", "authorization: bearer \(try sim.token())",
                "--data", #"{"message-storage-policy": 0, "push-type": "LiveActivity"}"#,
                "\(sim.managementURL)/1/apps/\(sim.bundleID)/channels",
            ])
            #expect(refused.reason == "CannotCreateChannelConfig")
            let settings = try await sim.admin("GET", "/settings")
            #expect(settings.json?["channelLimit"] as? Int == 1)

            let other = try await TeamKeys.shared.key(teamID: "TEAM000004", keyID: "KEY0000004")
            let body = try String(decoding: JSONEncoder().encode(other.team(bundleIDs: ["com.example.other"])), as: UTF8.self)
            #expect(try await sim.admin("POST", "/teams", body: body).status == 201)
            let teams = try await sim.admin("GET", "/teams")
            #expect((teams.json?["teams"] as? [[String: Any]])?.count == 2)
        }
    }

    @Test func badAdminInputIsNamed() async throws {
        try await SimulatorFixture.with { sim in
            let unknown = try await sim.admin("POST", "/faults", body: #"{"failnext": 3}"#)
            #expect(unknown.status == 422)
            #expect(unknown.body.contains("failnext"))
            let wrongType = try await sim.admin("POST", "/faults", body: #"{"failNext": "three"}"#)
            #expect(wrongType.status == 422)
            #expect(wrongType.body.contains("failNext"))
            let outOfRange = try await sim.admin("POST", "/faults", body: #"{"failStatus": 418}"#)
            #expect(outOfRange.status == 422)
            #expect(outOfRange.body.contains("failStatus"))
            let badTeam = try await sim.admin("POST", "/teams", body: #"{"teamID":"T1","keyID":"K1","publicKeyPEM":"nope","bundleIDs":["a.b"]}"#)
            #expect(badTeam.status == 422)
            let negative = try await sim.admin("POST", "/channel-limit", body: #"{"limit": -1}"#)
            #expect(negative.status == 422)
            #expect(sim.simulator.faults == .none)
        }
    }

    @Test func resetForgetsStateButKeepsTeams() async throws {
        try await SimulatorFixture.with { sim in
            let channelID = try await sim.createChannel()
            _ = try await sim.broadcast(channelID: channelID)
            _ = try await sim.admin("POST", "/faults", body: #"{"latencyMilliseconds": 5}"#)
            #expect(try await sim.admin("POST", "/reset").status == 204)
            #expect(sim.simulator.channels().isEmpty)
            #expect(sim.simulator.budgets().isEmpty)
            #expect(sim.simulator.receivedRequests().isEmpty)
            #expect(sim.simulator.faults == .none)
            #expect(sim.simulator.statistics().received == 0)
            #expect(try await sim.broadcast(channelID: channelID).reason == "ChannelNotRegistered")
            #expect(sim.simulator.teams.count == 1)
        }
    }

    @Test func requestLogIsBounded() async throws {
        try await SimulatorFixture.with(configure: { $0.requestLogCapacity = 2 }) { sim in
            for _ in 0..<4 { _ = try await sim.curl(["--header", "authorization: bearer \(try sim.token())", "\(sim.managementURL)/1/apps/\(sim.bundleID)/all-channels"]) }
            let kept = sim.simulator.receivedRequests()
            #expect(kept.map(\.sequence) == [3, 4])
            #expect(sim.simulator.statistics().received == 4)
        }
    }
}
