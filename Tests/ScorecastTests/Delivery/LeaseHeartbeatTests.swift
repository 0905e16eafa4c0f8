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
        // The send lasts 8 s: four leases of 2 s, and far from the APNs request timeout (60 s),
        // which a loaded machine must not reach (with 4.5 s against 5 s it did: the timed-out
        // send was sent again).
        try await DeliveryHarness.with(requestTimeout: .seconds(60)) { harness in
            let channel = try await harness.createChannel()
            try harness.simulator.setFaults(SimulatorFaults(latencyMilliseconds: 8_000))
            let workers = harness.makePool(harness.settings(workers: 1, lease: .seconds(2)))
            let store = OutboxStore(pool: harness.pool, logger: Logger(label: "other", level: .error))
            try await harness.running(workers) {
                try await harness.enqueue(channelID: channel.id, score: 1, timestamp: 1_750_000_001)
                var claimedUntil = 0.0
                try await harness.eventually("the row is claimed") {
                    let rows = try await harness.pool.query(
                        "SELECT extract(epoch FROM lease_expires_at)::float8 AS until FROM outbox WHERE lease_owner IS NOT NULL")
                    guard let row = rows.first else { return false }
                    claimedUntil = try row.decode("until", as: Double.self)
                    return true
                }
                // Past the lease the claim took, by the database's own clock (no guessed sleep):
                // only a heartbeat can have kept the row from being claimable now.
                try await harness.eventually("the claim's first lease runs out") {
                    try await harness.pool.query("SELECT extract(epoch FROM now())::float8 > \(claimedUntil) AS past")[0]
                        .decode("past", as: Bool.self)
                }
                let stolen = try await store.claim(owner: "another-process/w0", limit: 10, lease: .seconds(1))
                #expect(stolen.isEmpty, "the lease was extended while the send ran")
                // The row is still there, leased beyond its first lease: the send was still in
                // flight when the other process tried (the claim found nothing because of the
                // heartbeat, not because the send had already finished).
                let leased = try await harness.pool.query("""
                    SELECT count(*)::int8 AS n FROM outbox
                    WHERE lease_owner IS NOT NULL AND lease_owner <> 'another-process/w0'
                      AND extract(epoch FROM lease_expires_at)::float8 > \(claimedUntil)
                    """)[0].decode("n", as: Int.self)
                #expect(leased == 1)
                try await harness.eventually("the send completes") { try await harness.outboxCount() == 0 }
            }
            #expect(harness.broadcasts(to: channel.apnsID).count == 1)
            #expect(workers.statistics.fencedOut == 0)
            #expect(workers.statistics.sent == 1)
        }
    }
}
