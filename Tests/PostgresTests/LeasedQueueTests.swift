import Foundation
import LeasedQueue
import Postgres
import TestSupport
import Testing

/// The one leased queue every table of work shares, on a table of its own in a real Postgres:
/// side-by-side claims never take the same row, a lease holds until just before its expiry by
/// the caller's clock, and only its owner extends or gives it back.
@Suite struct LeasedQueueTests {
    /// Rows named by two columns, as the push-to-starts are.
    private static let queue = LeasedQueue(table: "jobs", alias: "j", key: ["device_id", "game_id"])
    /// Whole seconds: exact in Postgres.
    private static let start = Date(timeIntervalSince1970: 1_800_000_000)

    private func withJobs(_ count: Int, _ body: (PostgresPool) async throws -> Void) async throws {
        let configuration = try await TestDatabase.shared().makeSchema()
        let pool = PostgresPool(configuration: configuration, maxConnections: 3, logger: TestDatabase.logger)
        do {
            try await pool.execute("""
                CREATE TABLE jobs (device_id bigint, game_id text, due_at timestamptz NOT NULL, attempts int NOT NULL DEFAULT 0,
                                   lease_owner text, lease_expires_at timestamptz, PRIMARY KEY (device_id, game_id))
                """)
            try await pool.execute("""
                INSERT INTO jobs (device_id, game_id, due_at)
                SELECT n, 'g' || n, \(Self.start)::timestamptz + make_interval(secs => n) FROM generate_series(1, \(count)) n
                """)
            try await body(pool)
        } catch {
            await pool.close()
            throw error
        }
        await pool.close()
    }

    /// Claims up to `limit` rows due at `now` for `owner`, oldest due first; their device ids.
    private func claim(_ limit: Int, owner: String, lease: Duration = .seconds(30), at now: Date, on connection: PostgresConnection) async throws -> [Int64] {
        let claim = Self.queue.claim(
            LeasedQueue.Pick(condition: "j.due_at <= \(now) AND \(Self.queue.isFree(at: now))", order: "j.due_at", limit: limit),
            owner: owner, lease: lease, at: now, setting: "attempts = j.attempts + 1", returning: "j.device_id, j.attempts")
        return try await connection.query("WITH \(claim) SELECT device_id FROM claimed ORDER BY device_id").map { try $0.decode("device_id") }
    }

    private func claim(_ limit: Int, owner: String, lease: Duration = .seconds(30), at now: Date, on pool: PostgresPool) async throws -> [Int64] {
        try await pool.withTransaction { try await claim(limit, owner: owner, lease: lease, at: now, on: $0) }
    }

    private func leases(_ pool: PostgresPool) async throws -> [Int64: (owner: String?, expiresAt: Date?, attempts: Int32)] {
        var leases: [Int64: (owner: String?, expiresAt: Date?, attempts: Int32)] = [:]
        for row in try await pool.query("SELECT device_id, lease_owner, lease_expires_at, attempts FROM jobs") {
            leases[try row.decode("device_id")] = (try row.decode("lease_owner"), try row.decode("lease_expires_at"), try row.decode("attempts"))
        }
        return leases
    }

    @Test func claimsSideBySideNeverTakeTheSameRow() async throws {
        try await withJobs(6) { pool in
            let now = Self.start.addingTimeInterval(60)
            // The first claim's transaction stays open while the second claims: its rows are
            // locked, and the second takes the next ones instead of waiting for them.
            let (first, second) = try await pool.withTransaction { connection in
                let first = try await claim(4, owner: "a/w0", at: now, on: connection)
                return (first, try await claim(4, owner: "b/w0", at: now, on: pool))
            }
            #expect(first == [1, 2, 3, 4])
            #expect(second == [5, 6])
            let leases = try await leases(pool)
            #expect(leases.filter { $0.value.owner == "a/w0" }.keys.sorted() == [1, 2, 3, 4])
            #expect(leases.values.allSatisfy { $0.expiresAt == now.addingTimeInterval(30) && $0.attempts == 1 })
        }
    }

    @Test func aLeaseHoldsUntilJustBeforeItsExpiryByTheCallersClock() async throws {
        try await withJobs(1) { pool in
            #expect(try await claim(1, owner: "a/w0", lease: .seconds(2), at: Self.start.addingTimeInterval(1), on: pool) == [1])
            let expiry = Self.start.addingTimeInterval(3)
            func state(at now: Date) async throws -> (free: Bool, held: Bool, runOut: Bool) {
                let row = try await pool.query("""
                    SELECT \(Self.queue.isFree(at: now)) AS free, \(Self.queue.isHeld(at: now)) AS held,
                           \(Self.queue.hasRunOut(at: now)) AS run_out
                    FROM jobs j
                    """)[0]
                return (try row.decode("free"), try row.decode("held"), try row.decode("run_out"))
            }
            let before = try await state(at: expiry.addingTimeInterval(-0.001))
            #expect(!before.free && before.held && !before.runOut)
            #expect(try await claim(1, owner: "b/w0", at: expiry.addingTimeInterval(-0.001), on: pool).isEmpty)
            let at = try await state(at: expiry)
            #expect(at.free && !at.held && at.runOut)
            #expect(try await claim(1, owner: "b/w0", at: expiry, on: pool) == [1])
            #expect(try await leases(pool)[1]?.owner == "b/w0")
            #expect(try await leases(pool)[1]?.attempts == 2)
        }
    }

    @Test func onlyTheOwnerExtendsOrGivesBackALease() async throws {
        try await withJobs(3) { pool in
            let now = Self.start.addingTimeInterval(60)
            #expect(try await claim(1, owner: "a/w0", at: now, on: pool) == [1])
            #expect(try await claim(1, owner: "a/w1", at: now, on: pool) == [2])
            #expect(try await claim(1, owner: "b/w0", at: now, on: pool) == [3])
            let later = now.addingTimeInterval(10)
            let queue = LeasedQueue(table: "jobs", alias: "j", key: ["device_id"])
            #expect(try await pool.execute(queue.extend([1, 2, 3] as [Int64], owner: "a/w0", lease: .seconds(30), at: later)) == 1)
            #expect(try await leases(pool)[1]?.expiresAt == later.addingTimeInterval(30))
            #expect(try await leases(pool)[2]?.expiresAt == now.addingTimeInterval(30))
            #expect(try await pool.execute(queue.release([1, 2] as [Int64], owner: "a/w1")) == 1)
            #expect(try await leases(pool)[2]?.owner == nil)
            #expect(try await leases(pool)[1]?.owner == "a/w0")
            #expect(try await pool.execute(queue.releaseAll(ownerPrefix: "a/")) == 1)
            let after = try await leases(pool)
            #expect(after[1]?.owner == nil && after[1]?.expiresAt == nil)
            #expect(after[3]?.owner == "b/w0")
        }
    }

    @Test func theRescueGivesBackRunOutLeasesOldestFirstWithinItsLimit() async throws {
        try await withJobs(4) { pool in
            let now = Self.start.addingTimeInterval(60)
            for (device, lease) in [(1, 5), (2, 3), (3, 9), (4, 60)] {
                try await pool.execute("""
                    UPDATE jobs SET lease_owner = 'dead/w0', lease_expires_at = \(now.addingTimeInterval(Double(lease)))
                    WHERE device_id = \(Int64(device))
                    """)
            }
            let rescue = Self.queue.rescue(limit: 2, at: now.addingTimeInterval(9), returning: "j.device_id")
            let rescued = try await pool.query("WITH \(rescue) SELECT device_id FROM rescued ORDER BY device_id").map { try $0.decode("device_id", as: Int64.self) }
            #expect(rescued == [1, 2])
            let again = try await pool.query("WITH \(Self.queue.rescue(limit: 10, at: now.addingTimeInterval(9), returning: "j.device_id")) SELECT device_id FROM rescued")
            #expect(try again.map { try $0.decode("device_id", as: Int64.self) } == [3])
            #expect(try await leases(pool)[4]?.owner == "dead/w0")
        }
    }
}
