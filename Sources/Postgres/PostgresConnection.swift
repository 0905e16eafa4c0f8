import Dispatch
import Foundation
import ScorecastLogging
import Synchronization

/// One connection to Postgres, with a thread of its own for libpq's blocking calls.
///
/// Statements run one at a time in submission order. Cancelling the calling task asks the
/// server to cancel the running statement (it then fails with SQLSTATE `57014`).
/// Usually obtained from a `PostgresPool`; `connect` opens a standalone one.
public final class PostgresConnection: Sendable {
    private let thread: ConnectionThread
    private let cancelHandle: CancelHandle
    private let broken = Atomic<Bool>(false)
    private let idle = Atomic<Bool>(true)
    private let closed = Atomic<Bool>(false)
    /// Set when the client gave up waiting for the server: the connection is never used again.
    private let abandoned = Atomic<Bool>(false)
    /// The client-side limit per statement (`PostgresConfiguration.responseTimeout`).
    private let responseTimeout: Duration?
    /// The running statement's deadline, on one timer per connection.
    let deadlines = StatementDeadlines()
    /// The socket, for the pool's lock-free "anything arrived while idle?" check.
    private let socket: Int32
    /// The server process serving this connection (`pg_backend_pid()`).
    public let backendPID: Int32

    private init(
        thread: ConnectionThread, socket: Int32, backendPID: Int32, cancelHandle: CancelHandle, responseTimeout: Duration?
    ) {
        self.thread = thread
        self.responseTimeout = responseTimeout
        self.socket = socket
        self.backendPID = backendPID
        self.cancelHandle = cancelHandle
    }

    deinit {
        cancelHandle.free()
        thread.stop()
    }

    /// Opens a connection. Throws `PostgresError` with code `connectionFailed`.
    public static func connect(configuration: PostgresConfiguration, logger: Logger) async throws -> PostgresConnection {
        try await withCheckedThrowingContinuation { continuation in
            open(configuration: configuration, logger: logger) { continuation.resume(with: $0) }
        }
    }

    /// Opens a connection on a new thread and reports on that thread, so callers (the pool)
    /// need no task of their own to wait for it.
    static func open(
        configuration: PostgresConfiguration,
        logger: Logger,
        completion: @escaping @Sendable (Result<PostgresConnection, PostgresError>) -> Void
    ) {
        let thread = ConnectionThread(name: "postgres")
        thread.submit { connection in
            do throws(PostgresError) {
                let opened = try LibPQConnection(configuration: configuration, logger: logger)
                connection = opened
                completion(.success(PostgresConnection(
                    thread: thread, socket: opened.socket, backendPID: opened.backendPID,
                    cancelHandle: opened.makeCancelHandle(), responseTimeout: configuration.responseTimeout)))
            } catch {
                thread.stop()
                completion(.failure(error))
            }
        }
    }

    /// Runs a statement and returns its rows.
    public func query(_ sql: SQL) async throws -> [PostgresRow] {
        try await run { try $0.execute(sql) }.rows
    }

    /// Runs a statement and returns how many rows it affected.
    @discardableResult
    public func execute(_ sql: SQL) async throws -> Int {
        try await run { try $0.execute(sql) }.affected
    }

    /// Runs `statements` in one round trip (libpq pipeline mode) and returns each one's result,
    /// in order. They run in order; until the pipeline ends they form one implicit transaction
    /// unless they are inside a transaction block (`withTransaction`, or a `BEGIN` among them).
    /// The first failure throws a `PostgresError` whose `statementIndex` names the statement;
    /// the ones after it do not run, and nothing the pipeline wrote outside a caller's block
    /// survives (an implicit transaction rolls back; a block it opened is rolled back).
    /// Cancellation and deadlines apply to the pipeline as to one statement.
    /// ```swift
    /// let results = try await connection.pipeline([
    ///     "UPDATE games SET seq = \(seq) WHERE id = \(id)",
    ///     "SELECT channel_id FROM channel_bindings WHERE game_id = \(id)",
    /// ])
    /// let channels = try results[1].rows.map { try $0.decode("channel_id", as: Int64.self) }
    /// ```
    public func pipeline(_ statements: [SQL]) async throws -> [PostgresStatementResult] {
        try await run { try $0.executePipeline(statements) }.map {
            PostgresStatementResult(rows: $0.rows, affected: $0.affected, commandTag: $0.commandTag)
        }
    }

    /// Runs several `;`-separated statements without parameters (simple protocol), such as a
    /// migration file. Never build the script from input.
    public func executeScript(unsafeSQL script: String) async throws {
        _ = try await run { connection in
            try connection.executeScript(script)
            return LibPQConnection.Outcome.empty
        }
    }

    /// Closes the connection once the statements already submitted are done, and waits for
    /// it. Later statements fail with `connectionClosed`.
    public func close() async {
        closed.store(true, ordering: .releasing)
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let submitted = thread.submit { connection in
                connection = nil
                continuation.resume()
            }
            if !submitted { continuation.resume() }
        }
        shutdown()
    }

    /// Closes the connection in the background (after submitted statements), without waiting.
    func shutdown() {
        closed.store(true, ordering: .releasing)
        cancelHandle.free()
        thread.stop()
    }

    /// Whether the connection broke (server gone, backend terminated) or was closed.
    public var isBroken: Bool {
        broken.load(ordering: .acquiring) || closed.load(ordering: .acquiring) || abandoned.load(ordering: .acquiring)
    }

    /// Whether the session is outside any transaction block, as of the last statement.
    public var isIdle: Bool { idle.load(ordering: .acquiring) }

    /// A statement's outcome including its command tag (`COMMIT` answers `ROLLBACK` when the
    /// transaction had failed).
    func executeReturningTag(_ sql: SQL, cancellable: Bool = true) async throws -> String {
        try await run(cancellable: cancellable) { try $0.execute(sql) }.commandTag
    }

    /// Whether the idle connection is still usable. Costs one non-blocking `poll()` when
    /// nothing arrived; when the socket is readable (e.g. the server terminated the backend),
    /// the pending input is consumed on the connection's thread to find out.
    func checkAlive() async -> Bool {
        guard !isBroken else { return false }
        var descriptor = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
        guard poll(&descriptor, 1, 0) > 0 else { return true }
        return (try? await run(cancellable: false) { connection in
            guard connection.consumePendingInput() else {
                throw PostgresError(.connectionClosed, "the connection to the server was lost")
            }
            return LibPQConnection.Outcome.empty
        }) != nil
    }

    /// Runs `body` on the connection's thread and resumes the caller with its result.
    /// With `cancellable: false` (for `ROLLBACK` on the way out of a cancelled task) the
    /// statement runs even when the task is cancelled. When the server has not answered by the
    /// deadline (`responseTimeout`, narrowed by `PostgresDeadline`), the caller fails with
    /// `timeout` and the connection is given up: its socket is shut, which also frees the
    /// thread blocked in libpq, and the pool replaces it.
    private func run<Value: Sendable>(
        cancellable: Bool = true,
        _ body: @escaping @Sendable (LibPQConnection) throws -> Value
    ) async throws -> Value {
        if cancellable && Task.isCancelled {
            throw PostgresError(.cancelled, "the task was cancelled before the statement was sent")
        }
        let limit = PostgresDeadline.remaining(within: responseTimeout, liftable: true)
        if let limit, limit <= .zero {
            throw PostgresError(.timeout, "the database call's deadline passed before the statement was sent")
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Value, Error>) in
                let waiter = OnceContinuation(continuation)
                // Armed before the statement is submitted, so its answer always finds the deadline to disarm.
                let deadline = limit.map { limit in
                    deadlines.arm(after: limit) { [weak self] in
                        waiter.expire(after: limit) {
                            guard let self else { return }
                            self.abandoned.store(true, ordering: .releasing)
                            shutDown(socket: self.socket)
                        }
                    }
                }
                let submitted = thread.submit { [self] connection in
                    let result: Result<Value, Error>
                    if let connection {
                        result = Result { try body(connection) }
                        broken.store(connection.isBroken, ordering: .releasing)
                        idle.store(connection.isIdle, ordering: .releasing)
                    } else {
                        result = .failure(PostgresError(.connectionClosed, "the connection is closed"))
                    }
                    // Disarmed before the caller resumes: once it has its answer, nothing of
                    // its statement is pending (a `defer` here raced the caller's next look).
                    if let deadline { deadlines.disarm(deadline) }
                    waiter.resume(with: result)
                }
                if !submitted {
                    if let deadline { deadlines.disarm(deadline) }
                    waiter.resume(with: .failure(PostgresError(.connectionClosed, "the connection is closed")))
                }
            }
        } onCancel: {
            if cancellable { cancelHandle.requestCancel() }
        }
    }
}

/// What one statement of a pipeline produced.
public struct PostgresStatementResult: Sendable {
    /// Its rows (empty for statements that return none).
    public var rows: [PostgresRow]
    /// Rows affected (inserted, updated, deleted, selected), 0 for statements that report none.
    public var affected: Int
    /// The command tag, e.g. `INSERT 0 1` or `COMMIT` (`ROLLBACK` when a `COMMIT` found the
    /// transaction failed).
    public var commandTag: String
}

/// A statement's caller, resumed once: by the statement's result or by its deadline
/// (``StatementDeadlines``), whichever comes first.
private final class OnceContinuation<Value: Sendable>: Sendable {
    private let continuation: Mutex<CheckedContinuation<Value, Error>?>

    init(_ continuation: CheckedContinuation<Value, Error>) {
        self.continuation = Mutex(continuation)
    }

    /// Resumes the caller unless the deadline already did.
    func resume(with result: Result<Value, Error>) {
        claim()?.resume(with: result)
    }

    /// The deadline `limit` passed: unless resumed already, runs `giveUp` (before the caller
    /// can hand the connection back) and fails the caller with `timeout`.
    func expire(after limit: Duration, giveUp: () -> Void) {
        guard let continuation = claim() else { return }
        giveUp()
        let milliseconds = max(1, limit.components.seconds * 1000 + limit.components.attoseconds / 1_000_000_000_000_000)
        continuation.resume(throwing: PostgresError(
            .timeout, "the database did not answer within \(milliseconds) ms; the connection was given up"))
    }

    private func claim() -> CheckedContinuation<Value, Error>? {
        continuation.withLock { stored in
            defer { stored = nil }
            return stored
        }
    }
}

/// Shuts both directions of `socket` without closing it (the owning thread still holds the
/// descriptor): a libpq call blocked on it returns at once with a broken connection.
private func shutDown(socket: Int32) {
    _ = shutdown(socket, Int32(SHUT_RDWR))
}
