@testable import Devices
import Foundation
@testable import Registry
import ScorecastCore
import Testing

/// How a batch of push-to-starts is written back: every value computed in Swift, one statement.
extension KickoffFanOutTests {
    @Test func aStartsRetryTimeAndEndTimeFollowItsStatus() {
        let now = Self.kickoff
        var completion = KickoffStore.Completion(
            deviceID: 1, gameID: "g1", status: .pending, input: "token", statusCode: 503, reason: "ServiceUnavailable", apnsID: "",
            retryAfter: 12.5, pruneReason: nil, token: "t")
        #expect(completion.notBefore(completedAt: now) == now.addingTimeInterval(12.5))
        #expect(completion.finishedAt(completedAt: now) == nil)
        for status in [KickoffStore.Completion.Status.started, .failed] {
            completion.status = status
            #expect(completion.notBefore(completedAt: now) == nil)
            #expect(completion.finishedAt(completedAt: now) == now)
        }
    }

    @Test func aBatchOfStartsIsWrittenBackWithTheValuesComputedForEach() async throws {
        try await RegistryFixture.with { fixture in
            _ = try await fixture.addApp(environment: .sandbox)
            try await addGame(fixture)
            for number in 1...4 { try await device(fixture, "d\(number)", token: number, follows: [(.team, "Arsenal")]) }
            let store = KickoffStore(pool: fixture.pool)
            try await store.begin(gameID: "g1", trigger: .command, now: Self.kickoff)
            let chunk = try await store.planAndClaim(limit: 10, owner: "w1", lease: .seconds(60), now: Self.kickoff)
            let starts = chunk.claimed.sorted { $0.deviceID < $1.deviceID }
            #expect(starts.count == 4)
            // The fourth start's lease ran out and another sender took it.
            try await fixture.pool.execute("UPDATE activity_starts SET lease_owner = 'w2' WHERE device_id = \(starts[3].deviceID)")

            func completion(_ start: KickoffStore.ClaimedStart, _ status: KickoffStore.Completion.Status) -> KickoffStore.Completion {
                KickoffStore.Completion(
                    deviceID: start.deviceID, gameID: "g1", status: status, input: "", statusCode: 0, reason: "", apnsID: "", retryAfter: 0,
                    pruneReason: nil, token: start.token)
            }
            var started = completion(starts[0], .started)
            started.input = "token"
            started.statusCode = 200
            started.apnsID = "A-1"
            var retried = completion(starts[1], .pending)
            retried.input = "token"
            retried.statusCode = 503
            retried.reason = "ServiceUnavailable"
            retried.retryAfter = 12.5
            var failed = completion(starts[2], .failed)
            failed.statusCode = 410
            failed.reason = "Unregistered"
            failed.pruneReason = "Unregistered"
            let completedAt = Self.kickoff.addingTimeInterval(3)
            try await store.complete([started, retried, failed, completion(starts[3], .started)], owner: "w1", now: completedAt)

            let rows = try await fixture.pool.query("""
                SELECT status, input, status_code, reason, apns_id, not_before, finished_at, lease_owner FROM activity_starts ORDER BY device_id
                """)
            #expect(try rows.map { try $0.decode("status", as: String.self) } == ["started", "pending", "failed", "sending"])
            #expect(try rows.map { try $0.decode("input", as: String?.self) } == ["token", "token", nil, nil], "an empty input is stored as NULL")
            #expect(try rows.map { try $0.decode("status_code", as: Int32?.self) } == [200, 503, 410, nil])
            #expect(try rows.map { try $0.decode("reason", as: String?.self) } == [nil, "ServiceUnavailable", "Unregistered", nil])
            #expect(try rows.map { try $0.decode("apns_id", as: String?.self) } == ["A-1", nil, nil, nil])
            #expect(try rows.map { try $0.decode("not_before", as: Date?.self) } == [nil, completedAt.addingTimeInterval(12.5), nil, nil])
            #expect(try rows.map { try $0.decode("finished_at", as: Date?.self) } == [completedAt, nil, completedAt, nil])
            #expect(try rows.map { try $0.decode("lease_owner", as: String?.self) } == [nil, nil, nil, "w2"], "a start another sender holds is not written")
            let device = try #require(try await DeviceStore(pool: fixture.pool).find(bundleID: "com.example.scores", installID: "d3"))
            #expect(device.pushToStartToken == nil && device.tokenPrunedReason == "Unregistered")
        }
    }
}
