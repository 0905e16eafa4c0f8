import Synchronization

/// Wakes waiting tasks, any number of times: each ``signal()`` starts a new generation.
///
/// A waiter passes the generation it saw before it last looked for work, so a signal that came
/// in between is never lost: ``wait(after:timeout:)`` then returns at once. Waiting ends on a
/// signal, on the timeout, or when the waiting task is cancelled.
package final class WakeSignal: Sendable {
    private struct State {
        var generation: UInt64 = 0
        var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
        var nextWaiterID = 0
    }

    private let state = Mutex(State())

    /// A signal at generation 0.
    package init() {}

    /// The current generation (0 until the first signal).
    package var generation: UInt64 { state.withLock { $0.generation } }

    /// Whether ``signal()`` was ever called (for one-shot use, such as "stopping").
    package var isSignalled: Bool { generation > 0 }

    /// Starts a new generation and wakes every waiter.
    package func signal() {
        let waiters = state.withLock { state in
            state.generation &+= 1
            defer { state.waiters.removeAll() }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Returns once the generation differs from `seen`, after `timeout` (`nil`: no limit), or
    /// when the task is cancelled.
    package func wait(after seen: UInt64, timeout: Duration?) async {
        guard let timeout else {
            await waitForSignal(after: seen)
            return
        }
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.waitForSignal(after: seen) }
            group.addTask { try? await Task.sleep(for: timeout) }
            await group.next()
            group.cancelAll()
        }
    }

    private func waitForSignal(after seen: UInt64) async {
        let id = state.withLock { state in
            state.nextWaiterID += 1
            return state.nextWaiterID
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow = state.withLock { state in
                    if state.generation != seen || Task.isCancelled { return true }
                    state.waiters[id] = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            state.withLock { $0.waiters.removeValue(forKey: id) }?.resume()
        }
    }
}
