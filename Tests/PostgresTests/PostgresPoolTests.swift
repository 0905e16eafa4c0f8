import Foundation
import ScorecastLogging
@testable import Postgres
import TestSupport
import Testing

@Suite struct PostgresPoolTests {
    private func backendPID(_ pool: PostgresPool) async throws -> Int32 {
        try await pool.query("SELECT pg_backend_pid() AS pid")[0].decode("pid", as: Int32.self)
    }

    /// Terminates `pid` from a connection of its own and waits until the backend is gone.
    private func terminate(_ pid: Int32) async throws {
        let admin = try await PostgresConnection.connect(configuration: TestDatabase.shared().configuration, logger: TestDatabase.logger)
        let killed = try await admin.query("SELECT pg_terminate_backend(\(pid)) AS ok")
        #expect(try killed[0].decode("ok", as: Bool.self))
        try await eventually("backend \(pid) is gone") {
            try await admin.query("SELECT 1 FROM pg_stat_activity WHERE pid = \(pid)").isEmpty
        }
        await admin.close()
    }

    @Test func recoversAfterTheServerKillsAnIdleBackend() async throws {
        let pool = try await TestDatabase.shared().makePool(maxConnections: 1)
        let first = try await backendPID(pool)
        try await terminate(first)
        // The dead idle connection is noticed before anything is sent on it and replaced.
        let second = try await backendPID(pool)
        #expect(second != first)
        #expect(try await pool.query("SELECT 2 AS n")[0].decode("n", as: Int.self) == 2)
        await pool.close()
    }

    @Test func recoversAfterTheServerKillsABusyBackend() async throws {
        let pool = try await TestDatabase.shared().makePool(maxConnections: 1)
        let marker = "busy-\(UUID().uuidString)"
        let sleeper = Task { try await pool.query("SELECT pg_sleep(10) /* \(unsafeSQL: marker) */") }
        let admin = try await PostgresConnection.connect(configuration: TestDatabase.shared().configuration, logger: TestDatabase.logger)
        var pid: Int32?
        try await eventually("the sleeping query shows in pg_stat_activity") {
            let rows = try await admin.query(
                "SELECT pid FROM pg_stat_activity WHERE query LIKE \("%" + marker + "%") AND pid <> pg_backend_pid()")
            pid = try rows.first?.decode("pid", as: Int32.self)
            return pid != nil
        }
        await admin.close()
        let busy = try #require(pid)
        try await terminate(busy)
        let result = await sleeper.result
        guard case .failure(let error as PostgresError) = result else {
            Issue.record("the killed statement did not fail: \(result)")
            return
        }
        #expect(error.code == .connectionClosed)
        #expect(try await backendPID(pool) != busy)
        await pool.close()
    }

    @Test func waitersTimeOutCleanlyWhenThePoolIsExhausted() async throws {
        let pool = try await TestDatabase.shared().makePool(maxConnections: 1, leaseTimeout: .milliseconds(200))
        // Opening the connection counts against the lease timeout too; on a busy machine the
        // first attempt may time out while the connection still opens and then stays idle.
        for _ in 0..<50 {
            if (try? await pool.query("SELECT 1")) != nil { break }
        }
        try await pool.withConnection { connection in
            let started = ContinuousClock.now
            // The timeout error is the proof that the wait ends; the deadline only turns a wait
            // that never ends into a failure (an upper bound of 3 s flaked on a loaded machine).
            do {
                _ = try await withDeadline("a waiter on an exhausted pool gives up") { try await pool.query("SELECT 1") }
                Issue.record("a second connection was handed out")
            } catch let error as PostgresError {
                #expect(error.code == .timeout)
            }
            #expect(ContinuousClock.now - started >= .milliseconds(190), "not before the lease timeout")
            // The holder is unaffected.
            #expect(try await connection.query("SELECT 1 AS one")[0].decode("one", as: Int.self) == 1)
        }
        #expect(try await pool.query("SELECT 1 AS one")[0].decode("one", as: Int.self) == 1)
        await pool.close()
    }

    @Test func waitersAreServedInOrderAndTheLimitHolds() async throws {
        let pool = try await TestDatabase.shared().makePool(maxConnections: 2)
        try await pool.execute("CREATE TABLE hits (pid int4)")
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<20 {
                group.addTask { try await pool.execute("INSERT INTO hits SELECT pg_backend_pid() FROM pg_sleep(0.01)") }
            }
            try await group.waitForAll()
        }
        let rows = try await pool.query("SELECT count(*) AS n, count(DISTINCT pid) AS pids FROM hits")
        #expect(try rows[0].decode("n", as: Int.self) == 20)
        #expect(try rows[0].decode("pids", as: Int.self) <= 2)
        await pool.close()
    }

    @Test func aCancelledWaiterLeavesTheLine() async throws {
        let pool = try await TestDatabase.shared().makePool(maxConnections: 1, leaseTimeout: .seconds(30))
        try await pool.withConnection { _ in
            let waiter = Task { try await pool.query("SELECT 1") }
            try await Task.sleep(for: .milliseconds(50))
            waiter.cancel()
            let result = await waiter.result
            guard case .failure(let error as PostgresError) = result else {
                Issue.record("the cancelled waiter got \(result)")
                return
            }
            #expect(error.code == .cancelled)
        }
        #expect(try await pool.query("SELECT 1 AS one").count == 1)
        await pool.close()
    }

    @Test func closingFailsLaterCallsAndWaitsForLeasedConnections() async throws {
        let pool = try await TestDatabase.shared().makePool(maxConnections: 1)
        _ = try await pool.query("SELECT 1")
        await pool.close()
        do {
            _ = try await pool.query("SELECT 1")
            Issue.record("a closed pool ran a statement")
        } catch let error as PostgresError {
            #expect(error.code == .poolClosed)
        }
        await pool.close()
    }

    @Test func unreachableServersFailEveryWaiterWithTheConnectError() async throws {
        let configuration = PostgresConfiguration(
            host: "127.0.0.1", port: try FreePort.find(), user: "x", password: "Hidden123", connectTimeout: .seconds(2))
        let sink = MemorySink()
        let pool = PostgresPool(configuration: configuration, maxConnections: 2, logger: Logger(label: "t", level: .warning, sink: sink))
        try await withThrowingTaskGroup(of: PostgresError.Code?.self) { group in
            for _ in 0..<4 {
                group.addTask {
                    do {
                        _ = try await pool.query("SELECT 1")
                        return nil
                    } catch let error as PostgresError {
                        return error.code
                    }
                }
            }
            for try await code in group { #expect(code == .connectionFailed) }
        }
        await pool.close()
        #expect(sink.lines.contains { $0.contains("could not open a connection") && $0.contains("Connection refused") })
        #expect(!sink.lines.contains { $0.contains("Hidden123") })
    }
}
