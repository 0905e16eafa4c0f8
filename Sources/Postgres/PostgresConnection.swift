import Foundation
import Logging
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
    /// The socket, for the pool's lock-free "anything arrived while idle?" check.
    private let socket: Int32
    /// The server process serving this connection (`pg_backend_pid()`).
    public let backendPID: Int32

    private init(thread: ConnectionThread, socket: Int32, backendPID: Int32, cancelHandle: CancelHandle) {
        self.thread = thread
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
                    cancelHandle: opened.makeCancelHandle())))
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

    /// Runs several `;`-separated statements without parameters (simple protocol), such as a
    /// migration file. Never build the script from input.
    public func executeScript(unsafeSQL script: String) async throws {
        _ = try await run { connection in
            try connection.executeScript(script)
            return LibPQConnection.Outcome(rows: [], affected: 0, commandTag: "")
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
    public var isBroken: Bool { broken.load(ordering: .acquiring) || closed.load(ordering: .acquiring) }

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
        return (try? await run { connection in
            guard connection.consumePendingInput() else {
                throw PostgresError(.connectionClosed, "the connection to the server was lost")
            }
            return LibPQConnection.Outcome(rows: [], affected: 0, commandTag: "")
        }) != nil
    }

    /// Runs `body` on the connection's thread and resumes the caller with its result.
    /// With `cancellable: false` (for `ROLLBACK` on the way out of a cancelled task) the
    /// statement runs even when the task is cancelled.
    private func run(
        cancellable: Bool = true,
        _ body: @escaping @Sendable (LibPQConnection) throws -> LibPQConnection.Outcome
    ) async throws -> LibPQConnection.Outcome {
        if cancellable && Task.isCancelled {
            throw PostgresError(.cancelled, "the task was cancelled before the statement was sent")
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let submitted = thread.submit { [self] connection in
                    guard let connection else {
                        continuation.resume(throwing: PostgresError(.connectionClosed, "the connection is closed"))
                        return
                    }
                    let result = Result { try body(connection) }
                    broken.store(connection.isBroken, ordering: .releasing)
                    idle.store(connection.isIdle, ordering: .releasing)
                    continuation.resume(with: result)
                }
                if !submitted {
                    continuation.resume(throwing: PostgresError(.connectionClosed, "the connection is closed"))
                }
            }
        } onCancel: {
            if cancellable { cancelHandle.requestCancel() }
        }
    }
}
