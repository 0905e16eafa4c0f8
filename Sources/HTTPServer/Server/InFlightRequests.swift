import Synchronization

/// Counts requests between their first byte (libmicrohttpd's URI callback) and their end (its
/// completed callback), and keeps the replies that handler tasks still owe, so that shutdown
/// can wait for them or answer them.
final class InFlightRequests: Sendable {
    private struct State {
        var count = 0
        var pending: [ObjectIdentifier: PendingReply] = [:]
    }

    private let state = Mutex(State())

    /// Requests begun and not yet completed.
    var count: Int { state.withLock { $0.count } }

    func begin() { state.withLock { $0.count += 1 } }

    func end() { state.withLock { $0.count -= 1 } }

    /// Registers a reply a handler task owes.
    func awaiting(_ reply: PendingReply) {
        state.withLock { $0.pending[ObjectIdentifier(reply)] = reply }
    }

    /// The reply was delivered (or abandoned): forget it.
    func settled(_ reply: PendingReply) {
        state.withLock { _ = $0.pending.removeValue(forKey: ObjectIdentifier(reply)) }
    }

    /// Removes and returns every reply still owed.
    func takeAllPending() -> [PendingReply] {
        state.withLock { state in
            defer { state.pending = [:] }
            return Array(state.pending.values)
        }
    }

    /// Waits until no request is in flight or `timeout` passes; `true` when idle. Polls every
    /// few milliseconds: it runs once, at shutdown, and keeps the hot path free of waiter
    /// bookkeeping.
    func waitUntilIdle(timeout: Duration) async -> Bool {
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: timeout)
        while count > 0 {
            if clock.now >= deadline || Task.isCancelled { return false }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return true
    }
}
