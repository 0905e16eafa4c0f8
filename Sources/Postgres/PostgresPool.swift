import Dispatch
import Foundation
import ScorecastLogging
import Synchronization

/// A bounded pool of connections, opened lazily and shared by any number of tasks.
///
/// ```swift
/// let pool = PostgresPool(configuration: config, maxConnections: 8, logger: logger)
/// let rows = try await pool.query("SELECT state FROM games WHERE id = \(id)")
/// try await pool.withTransaction { connection in
///     try await connection.execute("UPDATE games SET seq = \(seq) WHERE id = \(id)")
///     try await connection.execute("INSERT INTO events (game_id, seq) VALUES (\(id), \(seq))")
/// }
/// for try await event in pool.listen("outbox") { … }
/// ```
/// Callers that find every connection in use wait in line (first come, first served) for at
/// most `leaseTimeout` (or their `PostgresDeadline`), whether connections are busy or still
/// being opened; each statement waits at most the configuration's `responseTimeout`. A
/// connection that broke, or was handed back inside a transaction, is
/// closed and replaced. Errors are `PostgresError`s.
public final class PostgresPool: Sendable {
    private typealias Waiter = CheckedContinuation<(Int, PostgresConnection), Error>

    private struct State {
        var machine: PoolStateMachine
        var connections: [Int: PostgresConnection] = [:]
        var waiters: [Int: Waiter] = [:]
        var nextWaiterID = 0
        var closeWaiters: [CheckedContinuation<Void, Never>] = []
        var listeners: [Int: PostgresListener] = [:]
        var nextListenerID = 0
    }

    /// Side effects decided under the lock, carried out after it is released.
    private enum Effect {
        case resume(Waiter, Result<(Int, PostgresConnection), PostgresError>)
        case connect(Int)
        case close(PostgresConnection)
        case wake([CheckedContinuation<Void, Never>])
        case startTimer(Int, Duration)
    }

    /// Where and how connections connect.
    public let configuration: PostgresConfiguration
    /// The most connections open at once.
    public let maxConnections: Int
    /// How long a caller waits for a connection when all are in use or being opened.
    public let leaseTimeout: Duration
    private let logger: Logger
    /// Failed connects, summarised: while the server is away every lease tries one.
    private let repeats: RepeatLog
    private let state: Mutex<State>

    /// Creates a pool; no connection opens until one is needed.
    public init(
        configuration: PostgresConfiguration,
        maxConnections: Int = 10,
        leaseTimeout: Duration = .seconds(10),
        logger: Logger
    ) {
        self.configuration = configuration
        self.maxConnections = max(1, maxConnections)
        self.leaseTimeout = leaseTimeout
        self.logger = logger.named("postgres")
        self.repeats = RepeatLog(logger: self.logger)
        self.state = Mutex(State(machine: PoolStateMachine(maxConnections: maxConnections)))
    }

    /// Runs a statement on a pooled connection and returns its rows.
    public func query(_ sql: SQL) async throws -> [PostgresRow] {
        try await withConnection { try await $0.query(sql) }
    }

    /// Runs a statement on a pooled connection and returns how many rows it affected.
    @discardableResult
    public func execute(_ sql: SQL) async throws -> Int {
        try await withConnection { try await $0.execute(sql) }
    }

    /// Runs `statements` in one round trip on a pooled connection (`PostgresConnection.pipeline`).
    public func pipeline(_ statements: [SQL]) async throws -> [PostgresStatementResult] {
        try await withConnection { try await $0.pipeline(statements) }
    }

    /// Lends a connection to `body` and takes it back afterwards, whatever happens.
    public func withConnection<T>(
        isolation: isolated (any Actor)? = #isolation,
        _ body: (PostgresConnection) async throws -> T
    ) async throws -> T {
        let (id, connection) = try await leaseLiveConnection()
        do {
            let result = try await body(connection)
            release(id, connection)
            return result
        } catch {
            release(id, connection)
            throw error
        }
    }

    /// Runs `body` inside `BEGIN` … `COMMIT`. If `body` throws, the transaction is rolled back
    /// and the error rethrown. If `body` caught a statement error itself, the server has
    /// already aborted the transaction: `COMMIT` then rolls back and this throws
    /// `transactionRolledBack`.
    /// - Parameter localSettings: server settings for this transaction alone
    ///   (`set_config(name, value, true)`), sent with `BEGIN` in the same round trip.
    public func withTransaction<T>(
        localSettings: KeyValuePairs<String, String> = [:],
        isolation: isolated (any Actor)? = #isolation,
        _ body: (PostgresConnection) async throws -> T
    ) async throws -> T {
        try await withTransaction(localSettings: localSettings, opening: []) { connection, _ in try await body(connection) }
    }

    /// ``withTransaction(localSettings:isolation:_:)`` whose first statements, `opening`, go to
    /// the server with `BEGIN` (and the settings) in one round trip; `body` gets their results,
    /// in order. If one of them fails, the transaction is rolled back before `body` runs and
    /// the error is thrown with `statementIndex` counted within `opening`.
    public func withTransaction<T>(
        localSettings: KeyValuePairs<String, String> = [:],
        opening: [SQL],
        isolation: isolated (any Actor)? = #isolation,
        _ body: (PostgresConnection, [PostgresStatementResult]) async throws -> T
    ) async throws -> T {
        try await withConnection { connection in
            let settings: [SQL] = localSettings.map { "SELECT set_config(\($0.key), \($0.value), true)" }
            let opened: [PostgresStatementResult]
            if settings.isEmpty && opening.isEmpty {
                try await connection.execute("BEGIN")
                opened = []
            } else {
                do {
                    opened = Array(try await connection.pipeline(["BEGIN"] + settings + opening).dropFirst(1 + settings.count))
                } catch var error as PostgresError {
                    if let index = error.statementIndex, index > settings.count {
                        error.statementIndex = index - 1 - settings.count
                    } else {
                        // `BEGIN` or a setting failed: no opening statement is to blame.
                        error.statementIndex = nil
                        if !settings.isEmpty {
                            // The server's message has the name redacted (it was a bound parameter): name the settings.
                            error.message = "the transaction's settings (\(localSettings.map(\.key).joined(separator: ", "))) were refused: \(error.message)"
                        }
                    }
                    throw error
                }
            }
            let result: T
            do {
                result = try await body(connection, opened)
            } catch {
                if !connection.isBroken {
                    // Best effort: if ROLLBACK fails too, the connection is not idle and the
                    // pool closes it on release.
                    _ = try? await connection.executeReturningTag("ROLLBACK", cancellable: false)
                }
                throw error
            }
            if try await connection.executeReturningTag("COMMIT") == "ROLLBACK" {
                throw PostgresError(
                    .transactionRolledBack,
                    "a statement in the transaction failed and its error was caught; COMMIT rolled the transaction back")
            }
            return result
        }
    }

    /// Notifications sent to `channel`, received on a dedicated connection that reconnects and
    /// listens again if it drops. The stream yields `.listening` each time the subscription
    /// becomes active (a few milliseconds after this call, and after every reconnect): from
    /// then on every notification arrives; those sent before, or while disconnected, are lost,
    /// so a consumer looks at the state itself on `.listening`. The stream ends when its
    /// consumer stops iterating or the pool closes; it keeps the newest 10,000 undelivered
    /// events if its consumer falls behind.
    public func listen(_ channel: String) -> AsyncThrowingStream<PostgresListenEvent, Error> {
        let (stream, continuation) = AsyncThrowingStream<PostgresListenEvent, Error>.makeStream(
            bufferingPolicy: .bufferingNewest(10_000))
        if let problem = Self.validateChannel(channel) {
            continuation.finish(throwing: problem)
            return stream
        }
        let listenerID: Int? = state.withLock { state in
            guard !state.machine.isClosed else { return nil }
            state.nextListenerID += 1
            return state.nextListenerID
        }
        guard let listenerID else {
            continuation.finish(throwing: PostgresError(.poolClosed, "the pool is closed"))
            return stream
        }
        do {
            let listener = try PostgresListener(
                channel: channel, configuration: configuration, logger: logger, continuation: continuation,
                onFinish: { [weak self] in self?.state.withLock { _ = $0.listeners.removeValue(forKey: listenerID) } })
            let closedMeanwhile = state.withLock { state in
                if state.machine.isClosed { return true }
                state.listeners[listenerID] = listener
                return false
            }
            continuation.onTermination = { _ in listener.stop() }
            if closedMeanwhile { listener.stop() }
        } catch {
            continuation.finish(throwing: error)
        }
        return stream
    }

    /// Sends `payload` to everyone listening on `channel` (`pg_notify`), parameters bound.
    public func notify(channel: String, payload: String = "") async throws {
        if let problem = Self.validateChannel(channel) { throw problem }
        _ = try await query("SELECT pg_notify(\(channel), \(payload))")
    }

    /// Closes the pool: waiting callers fail with `poolClosed`, idle connections and listeners
    /// close now, leased connections when they are handed back. Returns when none is left.
    public func close() async {
        let listeners = state.withLock { state in
            defer { state.listeners.removeAll() }
            return Array(state.listeners.values)
        }
        listeners.forEach { $0.stop() }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let effects = state.withLock { state in
                state.closeWaiters.append(continuation)
                return Self.effects(of: state.machine.close(), in: &state)
            }
            perform(effects)
        }
    }

    // MARK: - Leasing

    private func leaseLiveConnection() async throws -> (Int, PostgresConnection) {
        // A connection whose backend was terminated while it sat idle is found out here, before
        // any statement is sent on it, and replaced.
        for _ in 0...maxConnections {
            let (id, connection) = try await lease()
            if await connection.checkAlive() { return (id, connection) }
            logger.info("discarding a pooled connection that broke while idle", ["pid": "\(connection.backendPID)"])
            release(id, connection)
        }
        return try await lease()
    }

    private func lease() async throws -> (Int, PostgresConnection) {
        if Task.isCancelled { throw PostgresError(.cancelled, "the task was cancelled while waiting for a connection") }
        let limit = PostgresDeadline.remaining(within: leaseTimeout, liftable: false) ?? leaseTimeout
        let waiterID = state.withLock { state in
            state.nextWaiterID += 1
            return state.nextWaiterID
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: Waiter) in
                let effects = state.withLock { state in
                    state.waiters[waiterID] = continuation
                    var actions = state.machine.lease(waiterID)
                    if state.machine.isWaiting(waiterID) && Task.isCancelled {
                        actions += state.machine.cancelled(waiterID)
                    }
                    var effects = Self.effects(of: actions, in: &state)
                    if state.machine.isWaiting(waiterID) { effects.append(.startTimer(waiterID, limit)) }
                    return effects
                }
                perform(effects)
            }
        } onCancel: {
            handle { $0.cancelled(waiterID) }
        }
    }

    private func release(_ id: Int, _ connection: PostgresConnection) {
        let reusable = !connection.isBroken && connection.isIdle
        if !reusable && !connection.isBroken {
            logger.warning("closing a connection handed back inside a transaction", ["pid": "\(connection.backendPID)"])
        }
        handle { $0.release(id, reusable: reusable) }
    }

    private func handle(_ event: (inout PoolStateMachine) -> [PoolStateMachine.Action]) {
        let effects = state.withLock { state in Self.effects(of: event(&state.machine), in: &state) }
        perform(effects)
    }

    /// Turns the machine's actions into effects, taking continuations and connections out of
    /// the state while the lock is held so that each is used exactly once.
    private static func effects(of actions: [PoolStateMachine.Action], in state: inout State) -> [Effect] {
        var effects: [Effect] = []
        for action in actions {
            switch action {
            case .lease(let id, let waiterID):
                guard let waiter = state.waiters.removeValue(forKey: waiterID),
                      let connection = state.connections[id]
                else { continue }
                effects.append(.resume(waiter, .success((id, connection))))
            case .fail(let waiterID, let reason):
                guard let waiter = state.waiters.removeValue(forKey: waiterID) else { continue }
                effects.append(.resume(waiter, .failure(error(for: reason, maxConnections: state.machine.maxConnections))))
            case .connect(let id):
                effects.append(.connect(id))
            case .close(let id):
                if let connection = state.connections.removeValue(forKey: id) { effects.append(.close(connection)) }
            case .drained:
                effects.append(.wake(state.closeWaiters))
                state.closeWaiters.removeAll()
            }
        }
        return effects
    }

    private static func error(for reason: PoolStateMachine.FailureReason, maxConnections: Int) -> PostgresError {
        switch reason {
        case .timeout:
            PostgresError(
                .timeout, "no connection became available in time (all \(maxConnections) in use or being opened)")
        case .cancelled:
            PostgresError(.cancelled, "the task was cancelled while waiting for a connection")
        case .poolClosed:
            PostgresError(.poolClosed, "the pool is closed")
        case .connectFailed(let error):
            error
        }
    }

    private func perform(_ effects: [Effect]) {
        for effect in effects {
            switch effect {
            case .resume(let waiter, let result):
                waiter.resume(with: result.mapError { $0 as Error })
            case .connect(let id):
                PostgresConnection.open(configuration: configuration, logger: logger) { [self] result in
                    switch result {
                    case .success(let connection):
                        let effects = state.withLock { state in
                            state.connections[id] = connection
                            return Self.effects(of: state.machine.connected(id), in: &state)
                        }
                        perform(effects)
                    case .failure(let error):
                        repeats.warning("could not open a connection", ["error": error.message])
                        handle { $0.connectFailed(id, error) }
                    }
                }
            case .close(let connection):
                connection.shutdown()
            case .wake(let continuations):
                continuations.forEach { $0.resume() }
            case .startTimer(let waiterID, let limit):
                // Waiter ids are never reused, so a timer that fires after its waiter was served
                // finds nothing to time out and needs no cancelling.
                let nanoseconds = limit.components.seconds * 1_000_000_000
                    + limit.components.attoseconds / 1_000_000_000
                DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(Int(nanoseconds))) { [weak self] in
                    self?.handle { $0.timedOut(waiterID) }
                }
            }
        }
    }

    /// Channel names are identifiers: non-empty, at most 63 bytes, no NUL.
    private static func validateChannel(_ channel: String) -> PostgresError? {
        let bytes = channel.utf8
        guard !bytes.isEmpty, bytes.count <= 63, !bytes.contains(0) else {
            return PostgresError(.invalidArgument, "a channel name must be 1 to 63 bytes without NUL")
        }
        return nil
    }
}
