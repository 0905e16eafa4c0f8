import Clocks
import APNsCore
import APNsSimulator
import Foundation
import Testing
import TestSupport
@testable import APNs

/// The client against the APNs simulator over real HTTP/2 and TLS: every operation, every
/// class of answer, token renewal, and the transport under GOAWAY, 503 storms, silence and load.
@Suite("APNs client against the simulator")
struct APNsClientSimulatorTests {
    static let bundleID = SimulatorHarness.bundleID
    static let payload = Array(#"{"aps":{"timestamp":1764453600,"event":"update","content-state":{"homeScore":2,"awayScore":1}}}"#.utf8)

    private func broadcast(_ channelID: String, priority: BroadcastPriority = .immediate, expiration: Int = 0,
                           requestID: UUID? = nil) -> Broadcast {
        Broadcast(bundleID: Self.bundleID, channelID: channelID, priority: priority, expiration: expiration,
                  payload: Self.payload, requestID: requestID)
    }

    @Test("create, read, list, broadcast, device push, delete: Apple's answers and headers")
    func everyOperation() async throws {
        try await SimulatorHarness.with { sim in
            let client = try sim.client()
            let requestID = UUID()
            let created = try await client.createChannel(bundleID: Self.bundleID, policy: .mostRecentMessageStored,
                                                         credentials: sim.credentials, requestID: requestID)
            #expect(created.status == 201)
            #expect(created.requestID == requestID.uuidString.lowercased())
            let channelID = try #require(created.channelID)

            let read = try await client.readChannel(bundleID: Self.bundleID, channelID: channelID, credentials: sim.credentials)
            #expect(read.status == 200)
            #expect(read.channelConfiguration == ChannelConfiguration(storagePolicy: .mostRecentMessageStored, pushType: "LiveActivity"))

            let list = try await client.listChannels(bundleID: Self.bundleID, credentials: sim.credentials)
            #expect(list.status == 200)
            #expect(list.channelIDs == [channelID])

            let broadcastID = UUID()
            let sent = try await client.sendBroadcast(
                broadcast(channelID, expiration: Int(sim.simulatorClock.now()) + 3600, requestID: broadcastID), credentials: sim.credentials)
            #expect(sent.status == 200)
            #expect(sent.outcome == .success)
            #expect(sent.requestID == broadcastID.uuidString.lowercased())
            #expect(!(sent.uniqueID ?? "").isEmpty)
            #expect(sent.latency > .zero)

            let start = LiveActivityPayload(
                timestamp: 1_764_453_600, event: .start, contentState: ["homeScore": 0, "awayScore": 0],
                alert: LiveActivityAlert(title: .plain("Kick-off"), body: .localized(key: "MATCH_START", arguments: ["Arsenal", "Chelsea"])),
                attributesType: "MatchAttributes", attributes: ["home": "Arsenal", "away": "Chelsea"],
                inputPushChannel: channelID)
            let device = try await client.sendToDevice(
                try DevicePush(liveActivityToken: String(repeating: "ab", count: 32), bundleID: Self.bundleID,
                               priority: .immediate, payload: start), credentials: sim.credentials)
            #expect(device.status == 200, "\(device.reason?.rawValue ?? "")")

            let deleted = try await client.deleteChannel(bundleID: Self.bundleID, channelID: channelID, credentials: sim.credentials)
            #expect(deleted.status == 204)
            let gone = try await client.readChannel(bundleID: Self.bundleID, channelID: channelID, credentials: sim.credentials)
            #expect(gone.status == 400 && gone.reason == .channelNotRegistered)

            // What the simulator received is what apns.md describes.
            let received = sim.simulator.receivedRequests()
            let broadcastRecord = try #require(received.first { $0.path == "/4/broadcasts/apps/\(Self.bundleID)" })
            let names = Set(broadcastRecord.headers.map(\.name))
            #expect(names.isSuperset(of: ["apns-channel-id", "apns-push-type", "apns-priority", "apns-expiration", "authorization"]))
            #expect(!names.contains("apns-topic"))
            #expect(received.contains { $0.method == "GET" && $0.path == "/1/apps/\(Self.bundleID)/all-channels" })
            await client.shutdown()
        }
    }

    @Test("every class of answer reaches the caller, classified")
    func everyOutcomeClass() async throws {
        try await SimulatorHarness.with(configure: {
            $0.channelLimit = 2
            $0.budgetPerHour = 1
            $0.retryAfter = .seconds(30)
        }) { sim in
            let client = try sim.client()
            let credentials = sim.credentials
            let channel = try #require(try await client.createChannel(
                bundleID: Self.bundleID, policy: .noMessageStored, credentials: credentials).channelID)

            // success
            #expect(try await client.sendBroadcast(broadcast(channel), credentials: credentials).outcome == .success)
            // throttled: the hourly priority-10 budget is 1; priority 5 is not counted
            let throttled = try await client.sendBroadcast(broadcast(channel), credentials: credentials)
            #expect(throttled.status == 429 && throttled.reason == .tooManyRequests && throttled.outcome == .throttled)
            #expect(throttled.retryAfterSeconds == 30)
            #expect(try await client.sendBroadcast(broadcast(channel, priority: .opportunistic), credentials: credentials).status == 200)
            // requestMalformed: a non-zero expiration on a No-Message-Stored channel
            let malformed = try await client.sendBroadcast(broadcast(channel, priority: .opportunistic, expiration: 1_764_460_000),
                                                           credentials: credentials)
            #expect(malformed.reason == .badExpirationDate && malformed.outcome == .requestMalformed)
            // channelGone: a channel that does not exist
            let unknown = try await client.sendBroadcast(broadcast("bm90LWEtY2hhbm5lbA==", priority: .opportunistic), credentials: credentials)
            #expect(unknown.reason == .channelNotRegistered && unknown.outcome == .channelGone)
            // configuration: over the channel limit (2)
            _ = try await client.createChannel(bundleID: Self.bundleID, policy: .noMessageStored, credentials: credentials)
            let overLimit = try await client.createChannel(bundleID: Self.bundleID, policy: .noMessageStored, credentials: credentials)
            #expect(overLimit.reason == .cannotCreateChannelConfig && overLimit.outcome == .configuration)
            // deviceTokenGone: an unregistered device token (410 with a timestamp)
            let token = String(repeating: "cd", count: 32)
            try sim.simulator.unregisterDeviceToken(token, timestampMilliseconds: 1_764_453_600_000)
            let unregistered = try await client.sendToDevice(DevicePush(
                token: token, topic: Self.bundleID + ".push-type.liveactivity", pushType: .liveActivity,
                priority: .immediate, payload: Array(#"{"aps":{"event":"update","timestamp":1,"content-state":{}}}"#.utf8)),
                credentials: credentials)
            #expect(unregistered.status == 410 && unregistered.outcome == .deviceTokenGone)
            #expect(unregistered.timestamp == 1_764_453_600_000)
            // retryWithBackoff: injected 503
            try sim.simulator.setFaults(SimulatorFaults(failNext: 1, failStatus: 503))
            let unavailable = try await client.listChannels(bundleID: Self.bundleID, credentials: credentials)
            #expect(unavailable.status == 503 && unavailable.outcome == .retryWithBackoff && unavailable.wantsFreshConnection)
            try sim.simulator.setFaults(.none)
            // credentialsBroken: a key the simulator does not know
            let stranger = try APNsCredentials(teamID: "TEAM123456", keyID: "UNKNOWNKEY", privateKey: .generate())
            let refused = try await client.listChannels(bundleID: Self.bundleID, credentials: stranger)
            #expect(refused.status == 403 && refused.outcome == .credentialsBroken, "\(refused.reason?.rawValue ?? "")")
            await client.shutdown()
        }
    }

    @Test("a bundle id the team may not use: 403 TopicMismatch, credentials broken")
    func topicMismatch() async throws {
        try await SimulatorHarness.with { sim in
            let client = try sim.client()
            let response = try await client.listChannels(bundleID: "com.other.app", credentials: sim.credentials)
            #expect(response.status == 403)
            #expect(response.reason == .topicMismatch)
            #expect(response.outcome == .credentialsBroken)
            await client.shutdown()
        }
    }

    @Test("ExpiredProviderToken: renewed once, the request succeeds, later requests use the new token")
    func tokenRenewal() async throws {
        try await SimulatorHarness.with { sim in
            // The simulator's clock runs 30 minutes ahead of the client's: a token the client
            // thinks is 31 minutes old is 61 minutes old to the simulator.
            sim.simulatorClock.advance(by: 30 * 60)
            let client = try sim.client()
            #expect(try await client.listChannels(bundleID: Self.bundleID, credentials: sim.credentials).status == 200)
            let first = try client.tokens.token(for: sim.credentials)
            sim.clientClock.advance(by: .seconds(31 * 60))
            sim.simulatorClock.advance(by: 31 * 60)
            let response = try await client.listChannels(bundleID: Self.bundleID, credentials: sim.credentials)
            #expect(response.status == 200)
            let renewed = try client.tokens.token(for: sim.credentials)
            #expect(renewed != first)
            #expect(renewed.issuedAt == first.issuedAt + 31 * 60)
            let answers = sim.simulator.receivedRequests().compactMap(\.reason)
            #expect(answers == ["ExpiredProviderToken"])
            #expect(try await client.listChannels(bundleID: Self.bundleID, credentials: sim.credentials).status == 200)
            #expect(sim.simulator.receivedRequests().compactMap(\.reason).count == 1)
            await client.shutdown()
        }
    }

    @Test("InvalidProviderToken on a lone request: that token is dropped, so a replaced key signs the next one")
    func invalidTokenDropped() async throws {
        try await SimulatorHarness.with { sim in
            let client = try sim.client()
            // The team's key id with another private key: the admin's wrong file, replaced in place later.
            let wrongKey = try APNsCredentials(teamID: sim.credentials.teamID, keyID: sim.credentials.keyID, privateKey: .generate())
            let refused = try await client.listChannels(bundleID: Self.bundleID, credentials: wrongKey)
            #expect(refused.status == 403 && refused.reason == .invalidProviderToken)
            // Same team and key id: only the drop makes the cache sign again with the right key.
            #expect(try await client.listChannels(bundleID: Self.bundleID, credentials: sim.credentials).status == 200)
            #expect(sim.simulator.receivedRequests().compactMap(\.reason) == ["InvalidProviderToken"])
            await client.shutdown()
        }
    }

    @Test("a token renewed too soon on a connection: 429 TooManyProviderTokenUpdates, keep the token")
    func tooManyTokenUpdates() async throws {
        try await SimulatorHarness.with { sim in
            let client = try sim.client { $0.maxConnectionsPerHost = 1 }
            #expect(try await client.listChannels(bundleID: Self.bundleID, credentials: sim.credentials).status == 200)
            client.tokens.invalidate(try client.tokens.token(for: sim.credentials))
            sim.clientClock.advance(by: .seconds(60))
            let response = try await client.listChannels(bundleID: Self.bundleID, credentials: sim.credentials)
            #expect(response.status == 429)
            #expect(response.reason == .tooManyProviderTokenUpdates)
            #expect(response.outcome == .keepTokenAndRetry)
            await client.shutdown()
        }
    }

    @Test("GOAWAY in the middle of a burst: every broadcast answered once, none lost or hung")
    func goAwayMidBurst() async throws {
        try await SimulatorHarness.with(configure: { $0.faults = SimulatorFaults(goAwayAfterStreams: 150) }) { sim in
            let client = try sim.client {
                $0.maxConnectionsPerHost = 1
                $0.requestTimeout = .seconds(30)
            }
            let channel = try #require(try await client.createChannel(
                bundleID: Self.bundleID, policy: .noMessageStored, credentials: sim.credentials).channelID)
            let count = 600
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for index in 0..<count {
                    let requestID = UUID(uuidString: String(format: "00000000-0000-4000-8000-%012d", index))
                    group.addTask {
                        try await client.sendBroadcast(broadcast(channel, priority: .opportunistic, requestID: requestID),
                                                       credentials: sim.credentials).status
                    }
                }
                return try await group.reduce(into: [Int: Int]()) { $0[$1, default: 0] += 1 }
            }
            // All answered 200: none waited for its 30 s deadline, which ends in a timeout error
            // (no wall-clock bound for a loaded machine to miss).
            #expect(statuses == [200: count])
            let broadcasts = sim.simulator.receivedRequests(limit: 5000).filter { $0.path.hasPrefix("/4/broadcasts") }
            let ids = broadcasts.compactMap { $0.headers.first { $0.name == "apns-request-id" }?.value }
            // Over several connections (GOAWAY every 150 streams): streams above the GOAWAY's last
            // id were resent on a fresh connection. Every broadcast reached the simulator; a few
            // may have arrived twice: libcurl 7.88 can report a stream as failed when its
            // connection closes after the GOAWAY even though the answer was on its way, and
            // broadcasts are resent (delivery is at least once).
            #expect(Set(ids).count == count)
            #expect(ids.count - count <= count / 20, "\(ids.count - count) duplicates")
            #expect(Set(broadcasts.map(\.connection)).count >= 4)
            await client.shutdown()
        }
    }

    @Test("a 503 storm: every request answered and classified, then service resumes")
    func serviceUnavailableStorm() async throws {
        try await SimulatorHarness.with { sim in
            let client = try sim.client()
            let channel = try #require(try await client.createChannel(
                bundleID: Self.bundleID, policy: .noMessageStored, credentials: sim.credentials).channelID)
            try sim.simulator.setFaults(SimulatorFaults(failPercent: 100, failStatus: 503))
            let storm = try await withThrowingTaskGroup(of: APNsResponse.self) { group in
                for _ in 0..<300 {
                    group.addTask { try await client.sendBroadcast(broadcast(channel, priority: .opportunistic), credentials: sim.credentials) }
                }
                return try await group.reduce(into: [APNsResponse]()) { $0.append($1) }
            }
            #expect(storm.count == 300)
            #expect(storm.allSatisfy { $0.status == 503 && $0.reason == .serviceUnavailable && $0.outcome == .retryWithBackoff })
            try sim.simulator.setFaults(.none)
            #expect(try await client.sendBroadcast(broadcast(channel, priority: .opportunistic), credentials: sim.credentials).status == 200)
            await client.shutdown()
        }
    }

    @Test("a silent server is cut off by the deadline; the client stays usable")
    func silentServer() async throws {
        try await SimulatorHarness.with { sim in
            // The channel comes from a client with the default deadline: a loaded machine's first
            // TLS handshake and token must not count against the short one under test.
            let setup = try sim.client()
            let channel = try #require(try await setup.createChannel(
                bundleID: Self.bundleID, policy: .noMessageStored, credentials: sim.credentials).channelID)
            await setup.shutdown()
            let client = try sim.client { $0.requestTimeout = .milliseconds(500) }
            try sim.simulator.setFaults(SimulatorFaults(blackHole: true))
            let credentials = sim.credentials
            let started = ContinuousClock.now
            // Sends that never end fail at the hang deadline instead of holding the suite.
            let errors = try await withDeadline("20 sends to a silent server end at their deadline") {
              await withTaskGroup(of: APNsClientError?.self) { group in
                for _ in 0..<20 {
                    group.addTask {
                        do throws(APNsClientError) {
                            _ = try await client.sendBroadcast(broadcast(channel, priority: .opportunistic), credentials: credentials)
                            return nil
                        } catch {
                            return error
                        }
                    }
                }
                return await group.reduce(into: [APNsClientError?]()) { $0.append($1) }
              }
            }
            #expect(errors.count == 20 && errors.allSatisfy { $0?.code == .timeout && $0?.outcome == .retryWithBackoff })
            #expect(ContinuousClock.now - started >= .milliseconds(450), "the deadline was waited for")
            try sim.simulator.setFaults(.none)
            // Usable again: a send is answered (one may still miss the short deadline on a loaded
            // machine, so the first answered one counts; a broken client is never answered).
            let credentialsAgain = sim.credentials
            try await eventually("the client is answered again") {
                (try? await client.sendBroadcast(broadcast(channel, priority: .opportunistic), credentials: credentialsAgain))?.status == 200
            }
            await client.shutdown()
        }
    }

    @Test("a reset stream: a read is sent again transparently; a creation fails as connectionLost")
    func resetStreams() async throws {
        try await SimulatorHarness.with { sim in
            let client = try sim.client()
            #expect(try await client.listChannels(bundleID: Self.bundleID, credentials: sim.credentials).status == 200)
            try sim.simulator.setFaults(SimulatorFaults(resetNext: 1))
            #expect(try await client.listChannels(bundleID: Self.bundleID, credentials: sim.credentials).status == 200)
            #expect(sim.simulator.statistics().answers["reset"] == 1)

            // Creating twice would leave a second channel behind: never resent.
            try sim.simulator.setFaults(SimulatorFaults(resetNext: 1))
            let error = await #expect(throws: APNsClientError.self) {
                _ = try await client.createChannel(bundleID: Self.bundleID, policy: .noMessageStored, credentials: sim.credentials)
            }
            #expect(error?.code == .connectionLost)
            #expect(error?.isRetryable == true)
            #expect(sim.simulator.channels().isEmpty)
            #expect(try await client.listChannels(bundleID: Self.bundleID, credentials: sim.credentials).status == 200)
            await client.shutdown()
        }
    }

    @Test("the advertised stream limit is respected")
    func streamLimit() async throws {
        try await SimulatorHarness.with(configure: {
            $0.faults = SimulatorFaults(latencyMilliseconds: 20, maxConcurrentStreams: 8)
        }) { sim in
            let client = try sim.client { $0.maxConnectionsPerHost = 1 }
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<80 {
                    group.addTask { try await client.listChannels(bundleID: Self.bundleID, credentials: sim.credentials).status }
                }
                return try await group.reduce(into: [Int: Int]()) { $0[$1, default: 0] += 1 }
            }
            #expect(statuses == [200: 80])
            let answers = sim.simulator.statistics().answers
            #expect(answers["reset"] == nil)
            #expect(sim.simulator.statistics().received == 80)
            await client.shutdown()
        }
    }
}
