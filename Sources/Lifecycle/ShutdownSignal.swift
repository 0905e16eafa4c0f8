import Synchronization

/// A one-shot signal: triggered once, awaited by any number of tasks.
///
/// The service group hands one to each service; a service returns from `run` soon after its
/// signal is triggered, finishing or releasing the work it holds.
public final class ShutdownSignal: Sendable {
    private struct State {
        var triggered = false
        var waiters: [CheckedContinuation<Void, Never>] = []
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
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Returns once the signal is triggered (at once if it already was).
    public func wait() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let resumeNow = state.withLock { state -> Bool in
                if state.triggered { return true }
                state.waiters.append(continuation)
                return false
            }
            if resumeNow { continuation.resume() }
        }
    }
}
