import ScorecastLogging

/// A fenced write found a row changed since it was read (its version moved on): the
/// transaction that read it is run again, as after a deadlock.
public struct RowsChangedConcurrently: Error, Sendable {
    /// Creates the error.
    public init() {}
}

/// Runs a transaction again when it lost a race to another one: Postgres chose it as a
/// deadlock's victim, refused it to keep transactions serializable, or its own fence found a
/// row changed since it was read (``RowsChangedConcurrently``). Each is a collision, not a
/// fault: the same work succeeds on a second try. Anything else is thrown at once.
///
/// ```swift
/// try await ConflictRetry(work: "ingest", logger: logger).run { try await pool.withTransaction { … } }
/// ```
public struct ConflictRetry: Sendable {
    /// What the work is, for the log line and the final error.
    public var work: String
    /// Runs in all, the first included.
    public var attempts: Int
    let logger: Logger

    /// A retry of `work` (at most `attempts` runs), logged to `logger`.
    public init(work: String, attempts: Int = 4, logger: Logger) {
        self.work = work
        self.attempts = max(1, attempts)
        self.logger = logger
    }

    /// Whether `error` is a collision with another transaction.
    public static func isConflict(_ error: any Error) -> Bool {
        if error is RowsChangedConcurrently { return true }
        guard let error = error as? PostgresError else { return false }
        return error.sqlState == PostgresError.SQLState.deadlockDetected
            || error.sqlState == PostgresError.SQLState.serializationFailure
    }

    /// Runs `body`, again after a short random pause (so that two writers that collided do not
    /// collide again) while it collides and runs are left. When rows kept changing through every
    /// run, the error says so and names the work.
    public func run<T>(_ body: () async throws -> T) async throws -> T {
        var attempt = 1
        while true {
            do {
                return try await body()
            } catch where Self.isConflict(error) && attempt < attempts {
                let reason = (error as? PostgresError)?.sqlState ?? "rows changed concurrently"
                logger.info("\(work) retried", ["reason": reason, "attempt": "\(attempt)"])
            } catch is RowsChangedConcurrently {
                throw PostgresError(.queryFailed, "\(work): rows kept changing concurrently; rolled back")
            }
            attempt += 1
            try await Task.sleep(for: .milliseconds(Int.random(in: 1...(5 * attempt))))
        }
    }
}
