import Foundation
import Synchronization
internal import CThreadName

/// Runs blocking calls (file reads, key parsing, `getaddrinfo`, a C library's stop call) on
/// threads of their own, never on Swift's cooperative pool — two threads on a 2-core machine,
/// which one blocked call would halve.
///
/// - **Bounded**: at most `maximumThreads` calls run at once; more wait in order. A thread is
///   started per busy slot and ends when no work is queued, so an idle executor holds none.
/// - **Cancellable**: a caller whose task is cancelled gets `CancellationError` at once. Work
///   still queued never runs; work already running cannot be interrupted (it is a blocking C
///   call), so it finishes on its thread and its result is dropped.
///
/// Long-lived loops (an event loop, a connection's thread) keep their dedicated `Thread`: this
/// is for one call that returns.
public final class BlockingExecutor: Sendable {
    /// The process's executor for short blocking calls.
    public static let shared = BlockingExecutor(maximumThreads: 8, name: "blocking-io")

    private struct Job {
        let id: Int
        let work: @Sendable () -> Void
    }

    private struct State {
        var queue: [Job] = []
        var running = 0
        var nextID = 0
    }

    /// How many calls may run at once.
    public let maximumThreads: Int
    private let name: String
    private let state = Mutex(State())

    /// Creates an executor running at most `maximumThreads` (at least 1) calls at once.
    public init(maximumThreads: Int, name: String = "blocking") {
        self.maximumThreads = max(1, maximumThreads)
        self.name = name
    }

    /// Runs `work` on an executor thread and returns its result; throws what it throws, or
    /// `CancellationError` when the calling task is cancelled first.
    public func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        let delivery = Delivery<T>()
        let id = state.withLock { state -> Int in
            defer { state.nextID += 1 }
            return state.nextID
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
                delivery.attach(continuation)
                guard !Task.isCancelled else {
                    delivery.finish(.failure(CancellationError()))
                    return
                }
                enqueue(Job(id: id) { delivery.finish(Result { try work() }) })
            }
        } onCancel: {
            // A job still queued is dropped; a running one finishes unseen.
            state.withLock { $0.queue.removeAll { $0.id == id } }
            delivery.finish(.failure(CancellationError()))
        }
    }

    /// How many calls run right now (for tests and metrics).
    public var runningCount: Int { state.withLock { $0.running } }

    private func enqueue(_ job: Job) {
        let startThread = state.withLock { state -> Bool in
            state.queue.append(job)
            guard state.running < maximumThreads else { return false }
            state.running += 1
            return true
        }
        if startThread { startWorker() }
    }

    private func startWorker() {
        let thread = Thread { [self] in
            _ = scorecast_name_this_thread(name)  // for top -H, ps -L and perf
            while let job = nextJob() { job.work() }
        }
        thread.start()
    }

    /// The next queued job, or `nil` (and one running slot fewer) when there is none.
    private func nextJob() -> Job? {
        state.withLock { state -> Job? in
            guard !state.queue.isEmpty else {
                state.running -= 1
                return nil
            }
            return state.queue.removeFirst()
        }
    }
}

/// Resumes a continuation exactly once, with whichever comes first: the work's result or the
/// caller's cancellation. The continuation may arrive after a cancellation (the handler can run
/// before the body), so an early outcome is kept until it does.
private final class Delivery<T: Sendable>: Sendable {
    private struct State {
        var continuation: CheckedContinuation<T, any Error>?
        var outcome: Result<T, any Error>?
        var delivered = false
    }

    private let state = Mutex(State())

    func attach(_ continuation: CheckedContinuation<T, any Error>) {
        let ready = state.withLock { state -> Result<T, any Error>? in
            guard !state.delivered else { return nil }
            if let outcome = state.outcome {
                state.delivered = true
                return outcome
            }
            state.continuation = continuation
            return nil
        }
        if let ready { continuation.resume(with: ready) }
    }

    func finish(_ outcome: Result<T, any Error>) {
        let waiting = state.withLock { state -> CheckedContinuation<T, any Error>? in
            guard !state.delivered, state.outcome == nil else { return nil }
            guard let continuation = state.continuation else {
                state.outcome = outcome
                return nil
            }
            state.delivered = true
            state.continuation = nil
            return continuation
        }
        waiting?.resume(with: outcome)
    }
}
