import Postgres
import ScorecastLogging
import Synchronization
import Testing

/// The one retry of a transaction that collided with another: deadlocks, serialization
/// failures and fences that found a row changed are run again; nothing else is.
@Suite struct ConflictRetryTests {
    private static let deadlock = PostgresError(.queryFailed, "deadlock detected", sqlState: PostgresError.SQLState.deadlockDetected)
    private static let serialization = PostgresError(
        .queryFailed, "could not serialize access", sqlState: PostgresError.SQLState.serializationFailure)

    @Test func aCollisionIsRunAgainAndEachRetryIsLogged() async throws {
        let sink = MemorySink()
        let runs = Mutex(0)
        let failures: [any Error] = [Self.deadlock, Self.serialization, RowsChangedConcurrently()]
        let value = try await ConflictRetry(work: "ingest transaction", attempts: 4, logger: Logger(label: "test", level: .info, sink: sink)).run {
            let run = runs.withLock { runs in
                runs += 1
                return runs
            }
            if run <= failures.count { throw failures[run - 1] }
            return run
        }
        #expect(value == 4)
        #expect(sink.lines.count == 3)
        #expect(sink.lines.allSatisfy { $0.contains("ingest transaction retried") }, "\(sink.lines)")
        #expect(sink.lines[0].contains("40P01") && sink.lines[1].contains("40001") && sink.lines[2].contains("rows changed concurrently"),
                "\(sink.lines)")
    }

    @Test func rowsThatKeepChangingEndInAnErrorNamingTheWork() async throws {
        let runs = Mutex(0)
        do {
            _ = try await ConflictRetry(work: "queueing token updates", attempts: 3, logger: Logger(label: "test", level: .error)).run {
                runs.withLock { $0 += 1 }
                throw RowsChangedConcurrently()
            }
            Issue.record("the retry did not give up")
        } catch let error as PostgresError {
            #expect(error.message == "queueing token updates: rows kept changing concurrently; rolled back")
        }
        #expect(runs.withLock { $0 } == 3)
    }

    @Test func aDeadlockThroughEveryRunIsThrownAsItCame() async throws {
        let runs = Mutex(0)
        await #expect(throws: PostgresError.self) {
            try await ConflictRetry(work: "completion", attempts: 2, logger: Logger(label: "test", level: .error)).run {
                runs.withLock { $0 += 1 }
                throw Self.deadlock
            }
        }
        #expect(runs.withLock { $0 } == 2)
    }

    @Test func anyOtherErrorIsThrownAtOnce() async throws {
        let runs = Mutex(0)
        let refused = PostgresError(.queryFailed, "duplicate key", sqlState: PostgresError.SQLState.uniqueViolation)
        await #expect(throws: PostgresError.self) {
            try await ConflictRetry(work: "ingest transaction", logger: Logger(label: "test", level: .error)).run {
                runs.withLock { $0 += 1 }
                throw refused
            }
        }
        #expect(runs.withLock { $0 } == 1)
        #expect(!ConflictRetry.isConflict(refused))
        #expect(ConflictRetry.isConflict(Self.deadlock) && ConflictRetry.isConflict(Self.serialization))
    }
}
