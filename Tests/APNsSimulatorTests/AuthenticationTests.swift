import APNsSimulator
import Foundation
import Testing

/// Provider-token rules (apns.md §6) as APNs applies them.
@Suite struct AuthenticationTests {
    @Test func missingTokenIsMissingProviderToken() async throws {
        try await SimulatorFixture.with { sim in
            let response = try await sim.curl(["\(sim.managementURL)/1/apps/\(sim.bundleID)/all-channels"])
            #expect(response.status == 403)
            #expect(response.reason == "MissingProviderToken")
            let notBearer = try await sim.curl(["--header", "authorization: basic abc", "\(sim.managementURL)/1/apps/\(sim.bundleID)/all-channels"])
            #expect(notBearer.reason == "MissingProviderToken")
        }
    }

    @Test func tamperedTokenIsInvalidProviderToken() async throws {
        try await SimulatorFixture.with { sim in
            let channelID = try await sim.createChannel()
            let good = try sim.token()
            var parts = good.split(separator: ".").map(String.init)
            // Claim another issue time without re-signing.
            parts[1] = base64URL(#"{"iss":"\#(sim.key.teamID)","iat":\#(Int(Date().timeIntervalSince1970) - 5)}"#)
            let tampered = parts.joined(separator: ".")
            let response = try await sim.broadcast(channelID: channelID, token: tampered)
            #expect(response.status == 403)
            #expect(response.reason == "InvalidProviderToken")

            // A flipped signature byte.
            var signature = Array(good.split(separator: ".")[2].utf8)
            signature[5] = signature[5] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
            let flipped = good.split(separator: ".").prefix(2).joined(separator: ".") + "." + String(decoding: signature, as: UTF8.self)
            #expect(try await sim.broadcast(channelID: channelID, token: flipped).reason == "InvalidProviderToken")
            #expect(try await sim.broadcast(channelID: channelID, token: "not-a-jwt").reason == "InvalidProviderToken")
        }
    }

    @Test func unknownKeyOrWrongTeamIsInvalidProviderToken() async throws {
        try await SimulatorFixture.with { sim in
            let unknownKey = try sim.key.token(keyID: "KEYUNKNOWN")
            #expect(try await sim.createChannelAnswer(token: unknownKey).reason == "InvalidProviderToken")
            let wrongTeam = try sim.key.token(teamID: "OTHERTEAM1")
            #expect(try await sim.createChannelAnswer(token: wrongTeam).reason == "InvalidProviderToken")
            let otherKey = try await TeamKeys.shared.key(teamID: "TEAM000002", keyID: "KEY0000002")
            let signedByStranger = try otherKey.token(keyID: sim.key.keyID, teamID: sim.key.teamID)
            #expect(try await sim.createChannelAnswer(token: signedByStranger).reason == "InvalidProviderToken")
        }
    }

    @Test func tokenOlderThanAnHourIsExpired() async throws {
        try await SimulatorFixture.with { sim in
            let stale = try sim.token(issuedAt: Int(Date().timeIntervalSince1970) - 3601)
            let response = try await sim.createChannelAnswer(token: stale)
            #expect(response.status == 403)
            #expect(response.reason == "ExpiredProviderToken")
            let almost = try sim.token(issuedAt: Int(Date().timeIntervalSince1970) - 3500)
            #expect(try await sim.createChannelAnswer(token: almost).status == 201)
        }
    }

    @Test func cachedTokenStillExpires() async throws {
        let clock = ManualSimulatorClock()
        try await SimulatorFixture.with(configure: { $0.clock = clock }) { sim in
            let token = try sim.token(issuedAt: Int(clock.now()))
            #expect(try await sim.createChannelAnswer(token: token).status == 201)
            clock.advance(by: 3601)
            #expect(try await sim.createChannelAnswer(token: token).reason == "ExpiredProviderToken")
        }
    }

    @Test func changingTokenWithinTwentyMinutesOnOneConnection() async throws {
        try await SimulatorFixture.with { sim in
            let now = Int(Date().timeIntervalSince1970)
            let first = try sim.token(issuedAt: now - 300)
            let second = try sim.token(issuedAt: now)
            let list = "\(sim.managementURL)/1/apps/\(sim.bundleID)/all-channels"
            let answers = try await sim.curlOnOneConnection([
                ["--header", "authorization: bearer \(first)", list],
                ["--header", "authorization: bearer \(second)", list],
                ["--header", "authorization: bearer \(first)", list],
            ])
            #expect(answers.map(\.status) == [200, 429, 200])
            #expect(answers.dropFirst().first?.body.contains("TooManyProviderTokenUpdates") == true)
            // All three went over one connection.
            let connections = Set(sim.simulator.receivedRequests().map(\.connection))
            #expect(connections.count == 1)

            // A token issued 20+ minutes after the current one is a legitimate refresh.
            let later = try sim.token(issuedAt: now - 1500 + 1300)
            let refresh = try await sim.curlOnOneConnection([
                ["--header", "authorization: bearer \(try sim.token(issuedAt: now - 1500))", list],
                ["--header", "authorization: bearer \(later)", list],
            ])
            #expect(refresh.map(\.status) == [200, 200])
        }
    }

    @Test func pyJWTTokenIsAccepted() async throws {
        try await SimulatorFixture.with { sim in
            let token = try await sim.key.pyJWTToken()
            #expect(try await sim.createChannelAnswer(token: token).status == 201)
        }
    }

    @Test func teamsCanBeRegisteredAtRunTime() async throws {
        try await SimulatorFixture.with { sim in
            let other = try await TeamKeys.shared.key(teamID: "TEAM000003", keyID: "KEY0000003")
            let token = try other.token()
            #expect(try await sim.createChannelAnswer(token: token).reason == "InvalidProviderToken")
            try sim.simulator.registerTeam(other.team(bundleIDs: [sim.bundleID]))
            #expect(try await sim.createChannelAnswer(token: token).status == 201)
        }
    }
}

extension SimulatorFixture {
    /// The raw answer to a channel creation with `token`.
    func createChannelAnswer(token: String) async throws -> CurlResponse {
        try await curl([
            "--header", "authorization: bearer \(token)",
            "--data", #"{"message-storage-policy": 0, "push-type": "LiveActivity"}"#,
            "\(managementURL)/1/apps/\(bundleID)/channels",
        ])
    }
}

/// Unpadded base64url of `text`.
func base64URL(_ text: String) -> String {
    Data(text.utf8).base64EncodedString()
        .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
}
