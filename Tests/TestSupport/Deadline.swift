import Synchronization

/// How long a test waits for something that should happen before calling it a hang. It bounds a
/// hang only and never stands for a timing claim: a loaded CI machine must never reach it.
public let hangDeadline: Duration = .seconds(60)

/// What a test awaited did not happen before its deadline: a hang turned into a failure that
/// names what was awaited.
public struct DeadlineExceeded: Error, CustomStringConvertible {
    /// What the test was waiting for.
    public let what: String
    /// How long it waited.
    public let limit: Duration

    public var description: String { "\(what): still waiting after \(limit) (a hang)" }
}

/// Awaits `operation`, or throws `DeadlineExceeded` naming `what` once `limit` has passed.
///
/// The operation runs in a task of its own, so even one that ignores cancellation (a checked
/// continuation, another task's `value`) cannot hold the test: on the deadline it is cancelled
/// and left behind, and the test fails instead of hanging.
public func withDeadline<T: Sendable>(
    _ what: String, _ limit: Duration = hangDeadline, _ operation: @escaping @Sendable () async throws -> T
) async throws -> T {
    let race = FirstToFinish<T>()
    let work = Task { try await operation() }
    return try await withCheckedThrowingContinuation { continuation in
        race.await(continuation)
        race.watch(Task {
            guard (try? await Task.sleep(for: limit)) != nil else { return }
            race.finish(.failure(DeadlineExceeded(what: what, limit: limit)))
            work.cancel()
        })
        Task { race.finish(await work.result) }
    }
}

/// The continuation `withDeadline` resumes once: with the work's result or the deadline's error,
/// whichever comes first; the watchdog is cancelled then.
private final class FirstToFinish<T: Sendable>: Sendable {
    private struct State {
        var continuation: CheckedContinuation<T, any Error>?
        var watchdog: Task<Void, Never>?
    }
    private let state = Mutex(State())

    func await(_ continuation: CheckedContinuation<T, any Error>) { state.withLock { $0.continuation = continuation } }
    func watch(_ watchdog: Task<Void, Never>) { state.withLock { $0.watchdog = watchdog } }

    func finish(_ result: Result<T, any Error>) {
        let (continuation, watchdog) = state.withLock { state in
            defer { state.continuation = nil }
            return (state.continuation, state.watchdog)
        }
        guard let continuation else { return }
        watchdog?.cancel()
        continuation.resume(with: result)
    }
}

/// The one way a test waits for something to happen: polls `condition` until it holds, or throws
/// `DeadlineExceeded` naming `what` (the condition, in words) once `limit` has passed. Waits for
/// the event itself: the limit only bounds a hang.
public func eventually(
    _ what: String, deadline limit: Duration = hangDeadline, every interval: Duration = .milliseconds(10),
    _ condition: () async throws -> Bool
) async throws {
    let clock = ContinuousClock()
    let end = clock.now + limit
    while try await !condition() {
        guard clock.now < end else { throw DeadlineExceeded(what: what, limit: limit) }
        try await Task.sleep(for: interval)
    }
}

/// Runs `service` in a task of its own while `body` runs, then calls `stop` and waits for the
/// service to end: a service that does not stop fails the test naming `what` at the hang
/// deadline, instead of holding the suite until CI gives up. `body`'s error wins over the stop's.
public func whileRunning<T>(
    _ what: String, _ service: @escaping @Sendable () async throws -> Void, stop: () -> Void,
    _ body: () async throws -> T
) async throws -> T {
    let running = Task { try await service() }
    let result: T
    do {
        result = try await body()
    } catch {
        stop()
        _ = try? await withDeadline("\(what) stops") { try await running.value }
        throw error
    }
    stop()
    try await withDeadline("\(what) stops") { try await running.value }
    return result
}
