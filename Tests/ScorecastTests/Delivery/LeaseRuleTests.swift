import DeliveryEngine
import Foundation
import LeasedQueue
import Postgres
import ServiceBase
import Testing

/// The lease rule is stated twice, once in Swift for the channel's state machine
/// (`ChannelOutbox.Lease`) and once in SQL for the queues (`LeasedQueue`): the two must say the
/// same at every instant around a lease's expiry, or a worker's plan and its claim disagree.
@Suite struct LeaseRuleTests {
    @Test func theStateMachineAndTheQueuesSayTheSameAroundAnExpiry() async throws {
        try await DeliveryDatabase.with(maxConnections: 1) { database in
            let expiry = Date(timeIntervalSince1970: 1_800_000_000)  // whole seconds: exact in Postgres
            let lease = ChannelOutbox.Lease(owner: "w/w0", expiresAt: expiry)
            let queue = LeasedQueue.outbox
            for offset in [-3_600, -1, -0.000_001, 0, 0.000_001, 1, 3_600] as [Double] {
                let now = expiry.addingTimeInterval(offset)
                let row = try await database.pool.query("""
                    SELECT \(queue.isFree(at: now)) AS free, \(queue.isHeld(at: now)) AS held, \(queue.hasRunOut(at: now)) AS run_out
                    FROM (SELECT \(lease.owner)::text AS lease_owner, \(lease.expiresAt)::timestamptz AS lease_expires_at) o
                    """)[0]
                let runOut = lease.hasRunOut(at: now)
                #expect(try row.decode("run_out", as: Bool.self) == runOut, "at expiry \(offset) s")
                #expect(try row.decode("free", as: Bool.self) == runOut, "at expiry \(offset) s")
                #expect(try row.decode("held", as: Bool.self) == !runOut, "at expiry \(offset) s")
            }
            let unleased = try await database.pool.query("""
                SELECT \(queue.isFree(at: expiry)) AS free, \(queue.isHeld(at: expiry)) AS held, \(queue.hasRunOut(at: expiry)) AS run_out
                FROM (SELECT NULL::text AS lease_owner, NULL::timestamptz AS lease_expires_at) o
                """)[0]
            #expect(try unleased.decode("free", as: Bool.self))
            #expect(try !unleased.decode("held", as: Bool.self))
            #expect(try !unleased.decode("run_out", as: Bool.self))
        }
    }
}
