import APNsSimulator
import Foundation
import Logging
import Scorecast
import Testing
import TestSupport

/// A send slower than the lease keeps its row: the worker's heartbeat extends the lease, so no
/// other worker takes the row over and sends it a second time.
@Suite struct LeaseHeartbeatTests {
    @Test func aSendSlowerThanTheLeaseKeepsItsRow() async throws {
        try await DeliveryHarness.with { harness in
            let channel = try await harness.createChannel()
            try harness.simulator.setFaults(SimulatorFaults(latencyMilliseconds: 4_500))
            let workers = harness.makePool(harness.settings(workers: 1, lease: .seconds(2)))
            let store = OutboxStore(pool: harness.pool, logger: Logger(label: "other", level: .error))
            try await harness.running(workers) {
                try await harness.enqueue(channelID: channel.id, score: 1, timestamp: 1_750_000_001)
                try await harness.eventually("the row is claimed") {
                    try await harness.pool.query("SELECT count(*)::int8 AS n FROM outbox WHERE lease_owner IS NOT NULL")[0]
                        .decode("n", as: Int.self) == 1
                }
                // Well past the 2 s lease, the send is still in flight (4.5 s at the simulator).
                try await Task.sleep(for: .milliseconds(3_000))
                let stolen = try await store.claim(owner: "another-process/w0", limit: 10, lease: .seconds(1))
                #expect(stolen.isEmpty, "the lease was extended while the send ran")
                try await harness.eventually("the send completes") { try await harness.outboxCount() == 0 }
            }
            #expect(harness.broadcasts(to: channel.apnsID).count == 1)
            #expect(workers.statistics.fencedOut == 0)
            #expect(workers.statistics.sent == 1)
        }
    }
}
