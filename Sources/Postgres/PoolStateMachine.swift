/// The decisions of `PostgresPool`, without I/O or clocks: which waiter gets which connection,
/// when to open or close one, who fails and why. Every event returns the actions to carry out;
/// the pool performs them, so this is tested by feeding events and reading actions.
///
/// Rules: at most `maxConnections` connections exist (idle + leased + connecting); idle ones
/// are reused most-recently-used first; waiters are served first come, first served; a
/// connection is opened only while there are more waiters than connections being opened.
struct PoolStateMachine: Sendable {
    typealias ConnectionID = Int
    typealias WaiterID = Int

    /// Why a waiter got no connection.
    enum FailureReason: Sendable, Equatable {
        case timeout
        case cancelled
        case poolClosed
        case connectFailed(PostgresError)
    }

    /// What the pool must do.
    enum Action: Sendable, Equatable {
        /// Hand the connection to the waiter.
        case lease(ConnectionID, to: WaiterID)
        /// Fail the waiter.
        case fail(WaiterID, FailureReason)
        /// Open a new connection under this id; report `connected` or `connectFailed`.
        case connect(ConnectionID)
        /// Close and forget the connection.
        case close(ConnectionID)
        /// The pool is closed and no connection is left: wake whoever waits in `close()`.
        case drained
    }

    let maxConnections: Int
    private(set) var idle: [ConnectionID] = []
    private(set) var leased: Set<ConnectionID> = []
    private(set) var connecting: Set<ConnectionID> = []
    private(set) var waiters: [WaiterID] = []
    private(set) var isClosed = false
    private var nextConnectionID: ConnectionID = 0

    init(maxConnections: Int) {
        self.maxConnections = max(1, maxConnections)
    }

    /// Connections that exist or are being opened.
    var connectionCount: Int { idle.count + leased.count + connecting.count }

    /// Whether `waiter` is queued.
    func isWaiting(_ waiter: WaiterID) -> Bool { waiters.contains(waiter) }

    /// A caller wants a connection.
    mutating func lease(_ waiter: WaiterID) -> [Action] {
        if isClosed { return [.fail(waiter, .poolClosed)] }
        if let connection = idle.popLast() {
            leased.insert(connection)
            return [.lease(connection, to: waiter)]
        }
        waiters.append(waiter)
        return openConnectionsForWaiters()
    }

    /// The waiter's deadline passed; fails it if it is still waiting.
    mutating func timedOut(_ waiter: WaiterID) -> [Action] { removeWaiter(waiter, .timeout) }

    /// The waiter's task was cancelled; fails it if it is still waiting.
    mutating func cancelled(_ waiter: WaiterID) -> [Action] { removeWaiter(waiter, .cancelled) }

    /// A connection opened.
    mutating func connected(_ connection: ConnectionID) -> [Action] {
        guard connecting.remove(connection) != nil else { return [] }
        if isClosed { return [.close(connection)] + drainedIfDone() }
        return give(connection)
    }

    /// A connection could not be opened: the longest waiter learns why; the others keep
    /// waiting, with a new attempt if they still outnumber the attempts under way.
    mutating func connectFailed(_ connection: ConnectionID, _ error: PostgresError) -> [Action] {
        guard connecting.remove(connection) != nil else { return [] }
        var actions: [Action] = []
        if !waiters.isEmpty { actions.append(.fail(waiters.removeFirst(), .connectFailed(error))) }
        return actions + openConnectionsForWaiters() + drainedIfDone()
    }

    /// A leased connection came back; `reusable` is false when it broke or was left inside a
    /// transaction, and it is then closed (and replaced if someone waits).
    mutating func release(_ connection: ConnectionID, reusable: Bool) -> [Action] {
        guard leased.remove(connection) != nil else { return [] }
        if !reusable || isClosed {
            return [.close(connection)] + openConnectionsForWaiters() + drainedIfDone()
        }
        return give(connection)
    }

    /// Closes the pool: waiters fail, idle connections close, leased ones close when released.
    mutating func close() -> [Action] {
        guard !isClosed else { return drainedIfDone() }
        isClosed = true
        var actions = waiters.map { Action.fail($0, .poolClosed) }
        waiters.removeAll()
        actions += idle.map { Action.close($0) }
        idle.removeAll()
        return actions + drainedIfDone()
    }

    private mutating func give(_ connection: ConnectionID) -> [Action] {
        if waiters.isEmpty {
            idle.append(connection)
            return []
        }
        leased.insert(connection)
        return [.lease(connection, to: waiters.removeFirst())]
    }

    private mutating func removeWaiter(_ waiter: WaiterID, _ reason: FailureReason) -> [Action] {
        guard let index = waiters.firstIndex(of: waiter) else { return [] }
        waiters.remove(at: index)
        return [.fail(waiter, reason)]
    }

    private mutating func openConnectionsForWaiters() -> [Action] {
        var actions: [Action] = []
        while !isClosed, waiters.count > connecting.count, connectionCount < maxConnections {
            nextConnectionID += 1
            connecting.insert(nextConnectionID)
            actions.append(.connect(nextConnectionID))
        }
        return actions
    }

    private func drainedIfDone() -> [Action] {
        isClosed && connectionCount == 0 ? [.drained] : []
    }
}
