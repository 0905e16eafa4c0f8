import Foundation
@testable import Postgres
import Synchronization
import TestSupport
import Testing

/// A connection's statement deadlines: answered statements leave nothing pending and set no
/// timer of their own; deadlines that pass still expire their statements, in deadline order.
/// (Through a real connection, `PostgresDeadlineTests` shows the timeout and the replaced
/// connection.)
@Suite struct StatementDeadlinesTests {
    /// Expiry order, written by the deadlines' timer.
    private final class Expired: Sendable {
        let order = Mutex<[String]>([])
        let waiters = Mutex<[CheckedContinuation<Void, Never>]>([])

        func record(_ name: String) {
            order.withLock { $0.append(name) }
            for waiter in waiters.withLock({ waiters in defer { waiters.removeAll() }; return waiters }) { waiter.resume() }
        }

        /// Returns once `count` deadlines have expired.
        func wait(for count: Int) async {
            while order.withLock({ $0.count }) < count {
                await withCheckedContinuation { continuation in
                    let now = order.withLock { $0.count } >= count
                    if now { continuation.resume() } else { waiters.withLock { $0.append(continuation) } }
                }
            }
        }
    }

    @Test func answeredStatementsLeaveNoDeadlinePendingAndSetOneTimerBetweenThem() {
        let deadlines = StatementDeadlines()
        for _ in 0..<1_000 {
            let id = deadlines.arm(after: .seconds(60)) { Issue.record("an answered statement's deadline expired") }
            deadlines.disarm(id)
        }
        #expect(deadlines.pending == 0)
        // The first deadline set the timer; every later one falls after it and needs none.
        #expect(deadlines.timersSet == 1)
    }

    @Test func aConnectionsStatementsShareOneTimer() async throws {
        var configuration = try await TestDatabase.shared().makeSchema()
        configuration.responseTimeout = .seconds(60)
        let connection = try await PostgresConnection.connect(configuration: configuration, logger: TestDatabase.logger)
        var pendingAfterAnswers = 0
        for value in 0..<200 {
            #expect(try await connection.query("SELECT \(value)::int AS v")[0].decode("v", as: Int.self) == value)
            // Looked at as soon as each answer is in: the deadline goes before the caller resumes.
            pendingAfterAnswers += connection.deadlines.pending
        }
        #expect(pendingAfterAnswers == 0, "a statement's deadline was still pending after its answer")
        #expect(connection.deadlines.timersSet == 1, "each statement set a timer of its own")
        await connection.close()
    }

    @Test func deadlinesThatPassExpireTheEarliestFirstAndOnlyThose() async throws {
        let deadlines = StatementDeadlines()
        let expired = Expired()
        _ = deadlines.arm(after: .milliseconds(200)) { expired.record("later") }
        // Sooner than the pending timer: it sets one of its own. (Deadlines due together
        // expire in deadline order too, so a slow machine cannot change the order.)
        _ = deadlines.arm(after: .milliseconds(20)) { expired.record("sooner") }
        let kept = deadlines.arm(after: .seconds(3_600)) { expired.record("kept") }
        try await withDeadline("both deadlines expire") { await expired.wait(for: 2) }
        #expect(expired.order.withLock { $0 } == ["sooner", "later"])
        #expect(deadlines.pending == 1, "only the hour-long deadline is still pending")
        deadlines.disarm(kept)
        #expect(deadlines.pending == 0)
    }
}
