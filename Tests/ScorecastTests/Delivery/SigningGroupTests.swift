import APNs
import Foundation
import Postgres
import Testing
import TestSupport

/// A claimed batch goes to APNs as one client batch per signing key: rows of apps with
/// different keys in one claim each get their own fate.
@Suite struct SigningGroupTests {
    @Test func rowsOfTwoKeysInOneClaimAreSentOrPausedByTheirOwnKey() async throws {
        try await DeliveryHarness.with { harness in
            var sendable: [(id: Int64, apnsID: String)] = []
            for _ in 0..<3 { sendable.append(try await harness.createChannel()) }
            // A second app signing with a key file that does not exist: its rows cannot be signed.
            let unsigned = try await harness.database.addApp(
                bundleID: "com.example.other", teamID: "TEAMWORKER", keyID: "KEYWORKER2", keyPath: "/nonexistent/AuthKey_KEYWORKER2.p8")
            let stranded = try await harness.database.addChannel(appID: unsigned, apnsChannelID: "b3RoZXItYXBw")
            // Queued before the pool starts, so that its single worker's first claim takes all four.
            for (score, channel) in sendable.enumerated() {
                try await harness.enqueue(channelID: channel.id, score: score + 1, timestamp: 1_750_000_001, notify: false)
            }
            try await harness.enqueue(channelID: stranded, score: 9, timestamp: 1_750_000_001, notify: false)
            let workers = harness.makePool(harness.settings(workers: 1))
            try await harness.running(workers) {
                try await eventually("the signed rows are sent and the other app paused") {
                    let paused = try await harness.database.pause(unsigned).at != nil
                    return try await harness.outboxCount() == 1 && paused
                }
            }
            for channel in sendable {
                #expect(harness.broadcasts(to: channel.apnsID).map(\.status) == [200])
                #expect(try await harness.database.deliveries(channel.id).map(\.outcome) == ["sent"])
            }
            #expect(harness.broadcasts(to: "b3RoZXItYXBw").isEmpty)
            #expect(try await harness.database.deliveries(stranded).map(\.outcome) == ["paused"])
            #expect(try await harness.database.pause(unsigned).reason?.contains("/nonexistent/AuthKey_KEYWORKER2.p8") == true)
            #expect(try await harness.database.pause(harness.appID).at == nil)
            #expect(workers.statistics.sent == 3)
        }
    }
}
