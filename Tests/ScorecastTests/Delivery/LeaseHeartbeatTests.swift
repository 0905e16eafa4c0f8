import APNsSimulator
import Foundation
import ScorecastLogging
import Scorecast
import Testing
import TestSupport

/// A send slower than the lease keeps its row: the worker's heartbeat extends the lease, so no
/// other worker takes the row over and sends it a second time.
@Suite struct LeaseHeartbeatTests {
    @Test func aSendSlowerThanTheLeaseKeepsItsRow() async throws {
        // The simulator holds the send's answer until the test releases it, so the send lasts
        // as long as the checks need, however loaded the machine: no window to act within. The
        // request timeout only matters if the release never came.
        try await DeliveryHarness.with(requestTimeout: .seconds(300)) { harness in
            let channel = try await harness.createChannel()
            try harness.simulator.setFaults(SimulatorFaults(holdAnswers: true))
            let workers = harness.makePool(harness.settings(workers: 1, lease: .seconds(2)))
            let store = OutboxStore(pool: harness.pool, logger: Logger(label: "other", level: .error))
            try await harness.running(workers) {
                try await harness.enqueue(channelID: channel.id, score: 1, timestamp: 1_750_000_001)
                try await harness.eventually("the send is held at the simulator") { harness.simulator.heldAnswerCount == 1 }
                let claimedUntil = try await harness.pool.query(
                    "SELECT extract(epoch FROM lease_expires_at)::float8 AS until FROM outbox WHERE lease_owner IS NOT NULL")[0]
                    .decode("until", as: Double.self)
                // Past the lease the claim took, by the database's own clock (no guessed sleep):
                // only a heartbeat can have kept the row from being claimable now.
                try await harness.eventually("the claim's first lease runs out") {
                    try await harness.pool.query("SELECT extract(epoch FROM now())::float8 > \(claimedUntil) AS past")[0]
                        .decode("past", as: Bool.self)
                }
                let stolen = try await store.claim(owner: "another-process/w0", limit: 10, lease: .seconds(1))
                #expect(stolen.isEmpty, "the lease was extended while the send ran")
                // The row is still there, leased beyond its first lease, and the send still held:
                // the claim found nothing because of the heartbeat, not because the send had
                // finished.
                let leased = try await harness.pool.query("""
                    SELECT count(*)::int8 AS n FROM outbox
                    WHERE lease_owner IS NOT NULL AND lease_owner <> 'another-process/w0'
                      AND extract(epoch FROM lease_expires_at)::float8 > \(claimedUntil)
                    """)[0].decode("n", as: Int.self)
                #expect(leased == 1)
                #expect(harness.simulator.heldAnswerCount == 1)
                #expect(harness.simulator.releaseHeldAnswers() == 1)
                try await harness.eventually("the send completes") { try await harness.outboxCount() == 0 }
            }
            #expect(harness.broadcasts(to: channel.apnsID).count == 1)
            #expect(workers.statistics.fencedOut == 0)
            #expect(workers.statistics.sent == 1)
        }
    }
}
