import Clocks
import APNsCore
import APNsSimulator
import Foundation
import Testing
import TestSupport
@testable import APNs

/// `sendBroadcasts` (and `sendToDevices`) against the simulator over real HTTP/2 and TLS: every request of a batch
/// gets its own answer in order, the token is renewed once for those that need it, and shutdown
/// and cancellation end the batch's unanswered broadcasts.
@Suite("APNs client: batches of broadcasts against the simulator")
struct APNsClientBatchTests {
    static let bundleID = SimulatorHarness.bundleID
    static let payload = Array(#"{"aps":{"timestamp":1764453600,"event":"update","content-state":{"homeScore":2,"awayScore":1}}}"#.utf8)

    private func broadcast(_ channelID: String, expiration: Int = 0, number: Int) -> Broadcast {
        Broadcast(bundleID: Self.bundleID, channelID: channelID, priority: .opportunistic, expiration: expiration,
                  payload: Self.payload, requestID: Self.requestID(number))
    }

    private static func requestID(_ number: Int) -> UUID {
        UUID(uuidString: String(format: "00000000-0000-4000-8000-%012d", number)) ?? UUID()
    }

    /// Held answers must end by the shutdown or cancellation, never by their deadline: on a
    /// loaded machine the broadcasts may take longer than the usual 10 s to be held.
    private static func outlastingTheHangDeadline(_ configuration: inout APNsClientConfiguration) {
        configuration.requestTimeout = hangDeadline * 2
    }

    /// Waits until the simulator holds `count` broadcast answers (they are on their streams).
    private func untilHeld(_ count: Int, by sim: SimulatorHarness) async throws {
        let simulator = sim.simulator
        try await withDeadline("the simulator holds \(count) answers") {
            while simulator.heldAnswerCount < count { try await Task.sleep(for: .milliseconds(5)) }
        }
    }

    @Test("a mixed batch: each broadcast its own answer, in order; only the expired-token ones are renewed and resent, once")
    func mixedBatch() async throws {
        try await SimulatorHarness.with { sim in
            // The simulator's clock runs 30 minutes ahead of the client's (see the single-send
            // renewal test): after 31 more minutes the client's token is 61 minutes old to APNs.
            sim.simulatorClock.advance(by: 30 * 60)
            let client = try sim.client()
            let channel = try #require(try await client.createChannel(
                bundleID: Self.bundleID, policy: .noMessageStored, credentials: sim.credentials).channelID)
            let first = try client.tokens.token(for: sim.credentials)
            sim.clientClock.advance(by: .seconds(31 * 60))
            sim.simulatorClock.advance(by: 31 * 60)
            // The send host's first request goes alone (one stream until it answers): the
            // batch's first broadcast is the one that meets the injected 503, before any token check.
            try sim.simulator.setFaults(SimulatorFaults(failNext: 1, failStatus: 503))

            let batch = [
                broadcast(channel, number: 0),
                broadcast("bm90LWEtY2hhbm5lbA==", number: 1),
                broadcast(channel, expiration: 1_764_460_000, number: 2),
                broadcast("not base64!", number: 3),
                broadcast(channel, number: 4),
            ]
            let results = await client.sendBroadcasts(batch, credentials: sim.credentials)
            #expect(results.count == 5)
            let answers = results.map { try? $0.get() }
            #expect(answers[0]?.status == 503 && answers[0]?.reason == .serviceUnavailable)
            #expect(answers[1]?.status == 400 && answers[1]?.reason == .channelNotRegistered)
            #expect(answers[2]?.status == 400 && answers[2]?.reason == .badExpirationDate)
            #expect(answers[4]?.status == 200 && !(answers[4]?.uniqueID ?? "").isEmpty)
            // In order: each answer echoes its own broadcast's request id.
            for position in [0, 1, 2, 4] {
                #expect(answers[position]?.requestID == Self.requestID(position).uuidString.lowercased())
            }
            // Refused before sending, alone.
            guard case .failure(let invalid) = results[3] else {
                Issue.record("a broadcast with a malformed channel id was answered: \(results[3])")
                return
            }
            #expect(invalid.code == .invalidRequest && invalid.neverProcessed)

            // What APNs saw: the 503 once (not resent); the three others first refused with the
            // expired token, then sent again with one renewed token; the malformed one never.
            let received = sim.simulator.receivedRequests().filter { $0.path.hasPrefix("/4/broadcasts") }
            let byID = Dictionary(grouping: received) { $0.header("apns-request-id") ?? "" }
            #expect(byID[Self.requestID(0).uuidString.lowercased()]?.map(\.status) == [503])
            let resent: [(Int, String?)] = [(1, "ChannelNotRegistered"), (2, "BadExpirationDate"), (4, nil)]
            for (position, reason) in resent {
                let seen = byID[Self.requestID(position).uuidString.lowercased()] ?? []
                #expect(seen.map(\.reason) == ["ExpiredProviderToken", reason], "broadcast \(position)")
            }
            #expect(byID[Self.requestID(3).uuidString.lowercased()] == nil)
            let renewed = try client.tokens.token(for: sim.credentials)
            #expect(renewed.issuedAt == first.issuedAt + 31 * 60)
            #expect(await client.sendBroadcasts([], credentials: sim.credentials).isEmpty)
            await client.shutdown()
        }
    }

    @Test("a batch of device pushes: each its own answer, in order; a malformed token is refused alone, before sending")
    func deviceBatch() async throws {
        try await SimulatorHarness.with { sim in
            let client = try sim.client()
            let gone = String(repeating: "cd", count: 32)
            try sim.simulator.unregisterDeviceToken(gone, timestampMilliseconds: 1_764_453_600_000)
            func push(_ token: String, number: Int) -> DevicePush {
                DevicePush(token: token, topic: Self.bundleID + ".push-type.liveactivity", pushType: .liveActivity,
                           priority: .immediate, payload: Array(#"{"aps":{"event":"update","timestamp":1,"content-state":{}}}"#.utf8),
                           requestID: Self.requestID(number))
            }
            let pushes = [
                push(String(repeating: "ab", count: 32), number: 0),
                push(gone, number: 1),
                push("not-a-token", number: 2),
                push(String(repeating: "ef", count: 32), number: 3),
            ]
            let results = await client.sendToDevices(pushes, credentials: sim.credentials)
            let answers = results.map { try? $0.get() }
            #expect(answers[0]?.status == 200)
            #expect(answers[1]?.status == 410 && answers[1]?.outcome == .deviceTokenGone)
            #expect(answers[1]?.timestamp == 1_764_453_600_000)
            #expect(answers[3]?.status == 200)
            for position in [0, 1, 3] {
                #expect(answers[position]?.requestID == Self.requestID(position).uuidString.lowercased(), "push \(position)")
            }
            guard case .failure(let invalid) = results[2] else {
                Issue.record("a push to a malformed token was answered: \(results[2])")
                return
            }
            #expect(invalid.code == .invalidRequest && invalid.neverProcessed)
            let received = sim.simulator.receivedRequests().filter { $0.path.hasPrefix("/3/device/") }
            #expect(received.map(\.path).sorted() == pushes.enumerated().filter { $0.offset != 2 }.map { "/3/device/" + $0.element.token }.sorted())
            #expect(await client.sendToDevices([], credentials: sim.credentials).isEmpty)
            await client.shutdown()
        }
    }

    @Test("shutdown fails the batch's unanswered broadcasts; those settled before keep their result")
    func shutdownCutsBatch() async throws {
        try await SimulatorHarness.with { sim in
            let client = try sim.client(Self.outlastingTheHangDeadline)
            let channel = try #require(try await client.createChannel(
                bundleID: Self.bundleID, policy: .noMessageStored, credentials: sim.credentials).channelID)
            // The send host is warm, so the batch goes out at once; then every answer is held.
            #expect(try await client.sendBroadcast(broadcast(channel, number: 100), credentials: sim.credentials).status == 200)
            try sim.simulator.setFaults(SimulatorFaults(holdAnswers: true))
            let credentials = sim.credentials
            let batch = (0..<4).map { broadcast(channel, number: $0) } + [broadcast("", number: 4)]
            let sending = Task { await client.sendBroadcasts(batch, credentials: credentials) }
            try await untilHeld(4, by: sim)
            await client.shutdown()
            let results = try await withDeadline("the batch ends at shutdown") { await sending.value }
            let errors = results.map { result -> APNsClientError? in
                guard case .failure(let error) = result else { return nil }
                return error
            }
            #expect(errors.prefix(4).allSatisfy { $0?.code == .shutdown && $0?.neverProcessed == false }, "\(errors)")
            #expect(errors[4]?.code == .invalidRequest)
            let late = await client.sendBroadcasts([broadcast(channel, number: 5), broadcast(channel, number: 6)], credentials: credentials)
            #expect(late.allSatisfy { result in
                guard case .failure(let error) = result else { return false }
                return error.code == .shutdown && error.neverProcessed
            })
            _ = sim.simulator.releaseHeldAnswers()
        }
    }

    @Test("cancelling the awaiting task cancels the batch's unanswered broadcasts; the client stays usable")
    func cancellationCutsBatch() async throws {
        try await SimulatorHarness.with { sim in
            let client = try sim.client(Self.outlastingTheHangDeadline)
            let channel = try #require(try await client.createChannel(
                bundleID: Self.bundleID, policy: .noMessageStored, credentials: sim.credentials).channelID)
            #expect(try await client.sendBroadcast(broadcast(channel, number: 100), credentials: sim.credentials).status == 200)
            try sim.simulator.setFaults(SimulatorFaults(holdAnswers: true))
            let credentials = sim.credentials
            let batch = (0..<6).map { broadcast(channel, number: $0) }
            let sending = Task { await client.sendBroadcasts(batch, credentials: credentials) }
            try await untilHeld(6, by: sim)
            sending.cancel()
            let results = try await withDeadline("the batch ends at its cancellation") { await sending.value }
            #expect(results.count == 6)
            #expect(results.allSatisfy { result in
                guard case .failure(let error) = result else { return false }
                return error.code == .cancelled && !error.neverProcessed
            }, "\(results)")
            _ = sim.simulator.releaseHeldAnswers()
            try sim.simulator.setFaults(.none)
            let after = await client.sendBroadcasts([broadcast(channel, number: 7), broadcast(channel, number: 8)], credentials: credentials)
            #expect(after.map { try? $0.get().status } == [200, 200])
            await client.shutdown()
        }
    }
}
