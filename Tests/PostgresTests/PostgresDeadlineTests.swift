import Foundation
import ScorecastLogging
@testable import Postgres
import TestSupport
import Testing

/// Client-side deadlines: a server that does not answer (here: a statement that sleeps past
/// the deadline, as a stalled server would) fails the caller with `timeout`, the connection is
/// given up and replaced, and waits for a pooled connection end at the task's deadline.
@Suite struct PostgresDeadlineTests {
    private func pool(responseTimeout: Duration?, maxConnections: Int = 1) async throws -> PostgresPool {
        var configuration = try await TestDatabase.shared().makeSchema()
        configuration.responseTimeout = responseTimeout
        return PostgresPool(configuration: configuration, maxConnections: maxConnections, logger: TestDatabase.logger)
    }

    @Test func aStatementTheServerDoesNotAnswerInTimeFailsWithTimeoutAndTheConnectionIsReplaced() async throws {
        let pool = try await pool(responseTimeout: .milliseconds(300))
        // Only the sleep is under the 300 ms deadline: the other statements are lifted past it,
        // so a loaded machine's slow answer to them cannot fail the test.
        let first = try await PostgresDeadline.lifted { try await pool.query("SELECT pg_backend_pid() AS pid") }[0].decode("pid", as: Int32.self)
        let error = await #expect(throws: PostgresError.self) { try await pool.query("SELECT pg_sleep(5)") }
        #expect(error?.code == .timeout, "\(String(describing: error))")
        #expect(error?.message.contains("did not answer within 300 ms") == true, "\(String(describing: error))")
        // The given-up connection is not handed out again.
        let second = try await PostgresDeadline.lifted { try await pool.query("SELECT pg_backend_pid() AS pid") }[0].decode("pid", as: Int32.self)
        #expect(second != first)
        await pool.close()
    }

    @Test func aTransactionWhoseStatementTimesOutThrowsTimeoutAndLeavesNothingOpen() async throws {
        let pool = try await pool(responseTimeout: .seconds(60))
        try await pool.execute("CREATE TABLE marks (n int)")
        let error = await #expect(throws: PostgresError.self) {
            try await pool.withTransaction { connection in
                try await connection.execute("INSERT INTO marks VALUES (1)")
                // Only this statement has the short deadline, so only it can time out.
                _ = try await PostgresDeadline.within(.milliseconds(300)) { try await connection.execute("SELECT pg_sleep(5)") }
            }
        }
        #expect(error?.code == .timeout)
        // The abandoned backend's transaction never commits.
        #expect(try await pool.query("SELECT n FROM marks").isEmpty)
        await pool.close()
    }

    @Test func withinNarrowsTheResponseTimeoutForItsBody() async throws {
        let pool = try await pool(responseTimeout: .seconds(60))
        let error = await #expect(throws: PostgresError.self) {
            try await PostgresDeadline.within(.milliseconds(300)) { try await pool.query("SELECT pg_sleep(5)") }
        }
        #expect(error?.code == .timeout)
        await pool.close()
    }

    @Test func withinBoundsTheWaitForAPooledConnection() async throws {
        let pool = try await pool(responseTimeout: nil, maxConnections: 1)
        let holding = AsyncStream<Void>.makeStream()
        let release = AsyncStream<Void>.makeStream()
        let holder = Task {
            try await pool.withConnection { _ in
                holding.continuation.yield()
                for await _ in release.stream { break }
            }
        }
        for await _ in holding.stream { break }
        let error = await #expect(throws: PostgresError.self) {
            try await PostgresDeadline.within(.milliseconds(200)) { try await pool.query("SELECT 1") }
        }
        #expect(error?.code == .timeout)
        #expect(error?.message.contains("no connection became available") == true)
        release.continuation.yield()
        try await holder.value
        await pool.close()
    }

    @Test func liftedStatementsWaitPastTheResponseTimeout() async throws {
        let pool = try await pool(responseTimeout: .milliseconds(100))
        let rows = try await PostgresDeadline.lifted { try await pool.query("SELECT pg_sleep(0.5), 1 AS n") }
        #expect(try rows[0].decode("n", as: Int.self) == 1)
        await pool.close()
    }

    @Test func remainingIsTheSmallerOfTheLimitAndTheTaskDeadline() async throws {
        let now = ContinuousClock.now
        #expect(PostgresDeadline.remaining(within: .seconds(3), liftable: true, now: now) == .seconds(3))
        #expect(PostgresDeadline.remaining(within: nil, liftable: true, now: now) == nil)
        PostgresDeadline.$current.withValue(.at(now + .seconds(1))) {
            #expect(PostgresDeadline.remaining(within: .seconds(3), liftable: true, now: now) == .seconds(1))
            #expect(PostgresDeadline.remaining(within: nil, liftable: true, now: now) == .seconds(1))
            #expect(PostgresDeadline.remaining(within: .seconds(3), liftable: true, now: now + .seconds(2)) == .zero)
        }
        PostgresDeadline.$current.withValue(.lifted) {
            #expect(PostgresDeadline.remaining(within: .seconds(3), liftable: true, now: now) == nil)
            #expect(PostgresDeadline.remaining(within: .seconds(3), liftable: false, now: now) == .seconds(3))
        }
        // A nested deadline never extends an enclosing one.
        await PostgresDeadline.$current.withValue(.at(now + .seconds(1))) {
            await PostgresDeadline.within(.seconds(10)) {
                if case .at(let instant) = PostgresDeadline.current { #expect(instant == now + .seconds(1)) } else { Issue.record("no deadline") }
            }
        }
    }

    /// Work done in another task for several callers (a shared ingest transaction) waits no
    /// longer than the first of them may.
    @Test func aDeadlineCarriedToAnotherTaskKeepsTheEarliestInstant() async throws {
        let now = ContinuousClock.now
        let carried = PostgresDeadline.earliest([.at(now + .seconds(5)), .none, .at(now + .seconds(2)), .lifted])
        guard case .at(let instant) = carried else {
            Issue.record("no deadline: \(carried)")
            return
        }
        #expect(instant == now + .seconds(2))
        guard case .none = PostgresDeadline.earliest([.none, .lifted]) else {
            Issue.record("a deadline out of none")
            return
        }
        let captured = await PostgresDeadline.within(.milliseconds(200)) { PostgresDeadline.ofCurrentTask }
        // A task of its own does not inherit it; applied there, a stalled statement is given up at it.
        let pool = try await TestDatabase.shared().makePool(maxConnections: 1)
        let failure = await Task.detached {
            await #expect(throws: PostgresError.self) {
                try await PostgresDeadline.applying(captured) { try await pool.query("SELECT pg_sleep(5)") }
            }
        }.value
        // Without the deadline the sleep would end and answer.
        #expect(failure?.code == .timeout, "\(String(describing: failure))")
        await pool.close()
    }
}
