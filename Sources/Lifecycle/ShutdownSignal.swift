import Synchronization

/// A one-shot signal: triggered once, awaited by any number of tasks.
///
/// The service group hands one to each service; a service returns from `run` soon after its
/// signal is triggered, finishing or releasing the work it holds.
///
/// ``wait()`` also returns when the waiting task is cancelled, as swift-service-lifecycle's
/// graceful-shutdown wait does: a task blocked on the signal never outlives its cancellation,
/// which is what lets the group escalate a late graceful stop into cancellation.
public final class ShutdownSignal: Sendable {
    private struct State {
        var triggered = false
        var nextWaiter = 0
        var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
    }

    private let state = Mutex(State())

    /// Creates an untriggered signal.
    public init() {}

    /// Whether `trigger()` was called.
    public var isTriggered: Bool { state.withLock { $0.triggered } }

    /// Triggers the signal and wakes every waiter; later calls do nothing.
    public func trigger() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            guard !state.triggered else { return [] }
            state.triggered = true
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Returns once the signal is triggered (at once if it already was), or once the calling
    /// task is cancelled; check `isTriggered` or `Task.isCancelled` to tell which.
    public func wait() async {
        let id = state.withLock { state -> Int in
            defer { state.nextWaiter += 1 }
            return state.nextWaiter
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow = state.withLock { state -> Bool in
                    if state.triggered || Task.isCancelled { return true }
                    state.waiters[id] = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            // Runs at most once, possibly before the continuation is stored (then the check of
            // Task.isCancelled above resumes it) or after (then it is taken out here).
            let waiter = state.withLock { $0.waiters.removeValue(forKey: id) }
            waiter?.resume()
        }
    }
}
