import APNsSimulator
import Foundation
import Testing

/// Channel management as Apple documents it (apns.md §2, §10), driven by `curl` commands shaped
/// like Apple's: `--header` fields, `--data`, `--http2`, only the host swapped for the simulator.
@Suite struct ChannelManagementTests {
    @Test func appleCreateReadListDeleteSequence() async throws {
        try await SimulatorFixture.with { sim in
            let token = try sim.token()
            let requestID = UUID().uuidString.lowercased()

            // Create: 201, empty body, the id in apns-channel-id, the request id echoed.
            let created = try await sim.curl([
                "-v",
                "--header", "authorization: bearer \(token)",
                "--header", "apns-request-id: \(requestID)",
                "--data", #"{"message-storage-policy": 1, "push-type": "LiveActivity"}"#,
                "--http2", "\(sim.managementURL)/1/apps/\(sim.bundleID)/channels",
            ])
            #expect(created.status == 201)
            #expect(created.body.isEmpty)
            #expect(created.headers["apns-request-id"] == requestID)
            let channelID = try #require(created.headers["apns-channel-id"])
            #expect(Data(base64Encoded: channelID) != nil, "channel ids are base64")

            // Read: 200 with the policy and push type.
            let read = try await sim.curl([
                "--header", "authorization: bearer \(token)",
                "--header", "apns-channel-id: \(channelID)",
                "-X", "GET", "--http2", "\(sim.managementURL)/1/apps/\(sim.bundleID)/channels",
            ])
            #expect(read.status == 200)
            #expect(read.json?["message-storage-policy"] as? Int == 1)
            #expect(read.json?["push-type"] as? String == "LiveActivity")
            #expect(read.headers["apns-request-id"].map(isLowercaseUUID) == true, "APNs makes up a request id when none is sent")

            // List: /all-channels, not /channels.
            let listed = try await sim.curl([
                "--header", "authorization: bearer \(token)",
                "-X", "GET", "--http2", "\(sim.managementURL)/1/apps/\(sim.bundleID)/all-channels",
            ])
            #expect(listed.status == 200)
            #expect(listed.json?["channels"] as? [String] == [channelID])

            // Delete: 204, then the channel is gone.
            let deleted = try await sim.curl([
                "--header", "authorization: bearer \(token)",
                "--header", "apns-channel-id: \(channelID)",
                "-X", "DELETE", "--http2", "\(sim.managementURL)/1/apps/\(sim.bundleID)/channels",
            ])
            #expect(deleted.status == 204)
            #expect(deleted.body.isEmpty)
            let readAgain = try await sim.curl([
                "--header", "authorization: bearer \(token)", "--header", "apns-channel-id: \(channelID)",
                "\(sim.managementURL)/1/apps/\(sim.bundleID)/channels",
            ])
            #expect(readAgain.status == 400)
            #expect(readAgain.reason == "ChannelNotRegistered")
            let deletedAgain = try await sim.curl([
                "--header", "authorization: bearer \(token)", "--header", "apns-channel-id: \(channelID)",
                "-X", "DELETE", "\(sim.managementURL)/1/apps/\(sim.bundleID)/channels",
            ])
            #expect(deletedAgain.reason == "ChannelNotRegistered")
        }
    }

    @Test func storagePolicyIsFixedAtCreation() async throws {
        try await SimulatorFixture.with { sim in
            let noStorage = try await sim.createChannel(policy: 0)
            let mostRecent = try await sim.createChannel(policy: 1)
            #expect(noStorage != mostRecent)
            let channels = sim.simulator.channels()
            #expect(channels.map(\.messageStoragePolicy) == [0, 1])
            // The same channel read twice keeps its policy; there is no way to change it.
            let read = try await sim.curl([
                "--header", "authorization: bearer \(try sim.token())", "--header", "apns-channel-id: \(noStorage)",
                "\(sim.managementURL)/1/apps/\(sim.bundleID)/channels",
            ])
            #expect(read.json?["message-storage-policy"] as? Int == 0)
        }
    }

    @Test func readAndDeleteNeedAChannelID() async throws {
        try await SimulatorFixture.with { sim in
            let token = try sim.token()
            let missing = try await sim.curl(["--header", "authorization: bearer \(token)", "\(sim.managementURL)/1/apps/\(sim.bundleID)/channels"])
            #expect(missing.status == 400)
            #expect(missing.reason == "MissingChannelId")
            let malformed = try await sim.curl([
                "--header", "authorization: bearer \(token)", "--header", "apns-channel-id: not base64!",
                "-X", "DELETE", "\(sim.managementURL)/1/apps/\(sim.bundleID)/channels",
            ])
            #expect(malformed.status == 400)
            #expect(malformed.reason == "BadChannelId")
        }
    }

    @Test func createBodyIsChecked() async throws {
        try await SimulatorFixture.with { sim in
            let token = try sim.token()
            func create(_ body: String) async throws -> CurlResponse {
                try await sim.curl(["--header", "authorization: bearer \(token)", "--data-binary", body,
                                    "\(sim.managementURL)/1/apps/\(sim.bundleID)/channels"])
            }
            #expect(try await create(#"{"message-storage-policy": 0, "push-type": "Alert"}"#).reason == "InvalidPushType")
            #expect(try await create(#"{"message-storage-policy": 0}"#).reason == "MissingPushType")
            #expect(try await create(#"{"message-storage-policy": 2, "push-type": "LiveActivity"}"#).reason == "BadRequestParams")
            #expect(try await create(#"{"message-storage-policy": true, "push-type": "LiveActivity"}"#).reason == "BadRequestParams")
            #expect(try await create(#"{"message-storage-policy": 0, "push-type": "LiveActivity""#).reason == "BadRequestPayload")
            #expect(sim.simulator.channels().isEmpty)
        }
    }

    @Test func channelLimitPerAppGivesCannotCreateChannelConfig() async throws {
        try await SimulatorFixture.with(configure: { $0.channelLimit = 3 }) { sim in
            for _ in 0..<3 { _ = try await sim.createChannel() }
            let refused = try await sim.curl([
                "--header", "authorization: bearer \(try sim.token())",
                "--data", #"{"message-storage-policy": 0, "push-type": "LiveActivity"}"#,
                "\(sim.managementURL)/1/apps/\(sim.bundleID)/channels",
            ])
            #expect(refused.status == 400)
            #expect(refused.reason == "CannotCreateChannelConfig")
            // Deleting one makes room again.
            let victim = try #require(sim.simulator.channels().first?.id)
            let deleted = try await sim.curl([
                "--header", "authorization: bearer \(try sim.token())", "--header", "apns-channel-id: \(victim)",
                "-X", "DELETE", "\(sim.managementURL)/1/apps/\(sim.bundleID)/channels",
            ])
            #expect(deleted.status == 204)
            _ = try await sim.createChannel()
            #expect(sim.simulator.channels().count == 3)
        }
    }

    @Test func defaultLimitIsApplesTenThousand() {
        #expect(SimulatorConfiguration().channelLimit == 10_000)
    }

    @Test func requestIDMustBeALowercaseUUID() async throws {
        try await SimulatorFixture.with { sim in
            let upper = try await sim.curl([
                "--header", "authorization: bearer \(try sim.token())",
                "--header", "apns-request-id: \(UUID().uuidString)",
                "\(sim.managementURL)/1/apps/\(sim.bundleID)/all-channels",
            ])
            #expect(upper.status == 400)
            #expect(upper.reason == "BadMessageId")
        }
    }

    @Test func wrongMethodAndPath() async throws {
        try await SimulatorFixture.with { sim in
            let token = try sim.token()
            let put = try await sim.curl(["--header", "authorization: bearer \(token)", "-X", "PUT",
                                          "\(sim.managementURL)/1/apps/\(sim.bundleID)/channels"])
            #expect(put.status == 405)
            #expect(put.reason == "MethodNotAllowed")
            let postList = try await sim.curl(["--header", "authorization: bearer \(token)", "-X", "POST",
                                               "\(sim.managementURL)/1/apps/\(sim.bundleID)/all-channels"])
            #expect(postList.status == 405)
            let nowhere = try await sim.curl(["--header", "authorization: bearer \(token)", "\(sim.managementURL)/1/apps/\(sim.bundleID)/channel"])
            #expect(nowhere.status == 404)
            #expect(nowhere.reason == "BadPath")
            // Broadcasts are not served on the management port.
            let broadcastHere = try await sim.curl(["--header", "authorization: bearer \(token)", "--data", "{}",
                                                    "\(sim.managementURL)/4/broadcasts/apps/\(sim.bundleID)"])
            #expect(broadcastHere.reason == "BadPath")
        }
    }
}

/// Whether `text` is a lowercase canonical UUID.
func isLowercaseUUID(_ text: String) -> Bool {
    text.count == 36 && UUID(uuidString: text) != nil && text == text.lowercased()
}
