import APNsSimulator
import Clocks
import Delivery
import Foundation
import ScorecastLogging
import TestSupport
import Testing

/// A send slower than the lease keeps its row: the worker's heartbeat extends the lease, so no
/// other worker takes the row over and sends it a second time.
@Suite struct LeaseHeartbeatTests {
    /// When the row's lease ends, as written.
    static func leaseEnd(_ harness: DeliveryHarness) async throws -> Date {
        try await harness.pool.query("SELECT lease_expires_at FROM outbox WHERE lease_owner IS NOT NULL")[0]
            .decode("lease_expires_at", as: Date.self)
    }

    @Test func aSendSlowerThanTheLeaseKeepsItsRow() async throws {
        // Nothing here waits on a timer: the simulator holds the send's answer until the test
        // releases it, and the pool's clock (which dates the leases, decides the claims and
        // paces the heartbeat) moves only when the test steps it. A loaded machine can slow the
        // test down but not change what it sees. The request timeout only matters if the
        // release never came.
        try await DeliveryHarness.with(requestTimeout: .seconds(300)) { harness in
            let channel = try await harness.createChannel()
            try harness.simulator.setFaults(SimulatorFaults(holdAnswers: true))
            let clock = ManualServiceClock(Date())
            let lease = Duration.seconds(2)
            let workers = harness.makePool(harness.settings(workers: 1, lease: lease), clock: clock)
            let store = OutboxStore(pool: harness.pool, logger: Logger(label: "other", level: .error))
            try await harness.running(workers) {
                // Due a minute before the pool's clock: claimable at once.
                try await harness.database.enqueue(
                    channelID: channel.id, payload: DeliveryDatabase.payload(score: 1, timestamp: 1_750_000_001),
                    timestamp: 1_750_000_001, dueIn: -60)
                try await harness.pool.notify(channel: WorkerSettings.defaultNotifyChannel)
                try await eventually("the send is held at the simulator") { harness.simulator.heldAnswerCount == 1 }
                let firstLeaseEnd = try await Self.leaseEnd(harness)
                #expect(abs(firstLeaseEnd.timeIntervalSince(clock.now().addingTimeInterval(2))) < 0.001, "dated by the pool's clock")
                // Through the whole first lease and past it, a heartbeat period at a time: each
                // heartbeat extends the lease from the time it beats.
                for beat in 1...4 {
                    try await eventually("the heartbeat waits for its next beat") { clock.sleeperCount == 1 }
                    clock.advance(by: lease / 3)
                    let expected = clock.now().addingTimeInterval(2)
                    try await eventually("beat \(beat) extends the lease") {
                        abs(try await Self.leaseEnd(harness).timeIntervalSince(expected)) < 0.001
                    }
                }
                #expect(clock.now() > firstLeaseEnd, "the claim's own lease has run out")
                let stolen = try await store.claim(owner: "another-process/w0", limit: 10, lease: .seconds(1), at: clock.now())
                #expect(stolen.isEmpty, "the lease was extended while the send ran")
                // Still the worker's row and its send still held: the claim found nothing because
                // of the heartbeat, not because the send had finished.
                #expect(try await harness.pool.query("SELECT lease_owner FROM outbox")[0].decode("lease_owner", as: String?.self)
                    == "\(workers.ownerPrefix)/w0")
                #expect(harness.simulator.heldAnswerCount == 1)
                #expect(harness.simulator.releaseHeldAnswers() == 1)
                try await eventually("the send completes") { try await harness.outboxCount() == 0 }
            }
            #expect(harness.broadcasts(to: channel.apnsID).count == 1)
            #expect(workers.statistics.fencedOut == 0)
            #expect(workers.statistics.sent == 1)
        }
    }

    /// The other half: a lease nobody extends is anyone's once the clock that dates it reaches
    /// its end (a crashed worker's rows are rescued), and not a moment before.
    @Test func aLeaseNobodyExtendsRunsOutByTheClockThatDatesIt() async throws {
        try await DeliveryHarness.with { harness in
            let channel = try await harness.createChannel()
            let store = OutboxStore(pool: harness.pool, logger: Logger(label: "store", level: .error))
            let start = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down))  // whole seconds: exact in Postgres
            try await harness.database.enqueue(
                channelID: channel.id, payload: DeliveryDatabase.payload(score: 1, timestamp: 1_750_000_001),
                timestamp: 1_750_000_001, dueIn: -60)
            #expect(try await store.claim(owner: "crashed/w0", limit: 1, lease: .seconds(2), at: start).count == 1)
            #expect(try await store.claim(owner: "rescuer/w0", limit: 1, lease: .seconds(2), at: start.addingTimeInterval(1.999)).isEmpty)
            let rescued = try await store.claim(owner: "rescuer/w0", limit: 1, lease: .seconds(2), at: start.addingTimeInterval(2))
            #expect(rescued.map(\.leaseOwner) == ["rescuer/w0"])
        }
    }
}
