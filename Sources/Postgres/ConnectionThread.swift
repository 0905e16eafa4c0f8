import Dispatch
import Foundation
import Synchronization

/// A dedicated OS thread that runs one connection's blocking libpq calls, one job at a time,
/// so they never occupy Swift's cooperative pool. The libpq handle lives in the thread's own
/// local state and is handed to each job; it never crosses threads.
final class ConnectionThread: Sendable {
    typealias Job = @Sendable (inout LibPQConnection?) -> Void

    private struct Queue {
        var jobs: [Job] = []
        var stopping = false
    }

    /// What the thread and its submitters share (the thread must not retain the
    /// `ConnectionThread`, whose `deinit` stops it).
    private final class Shared: Sendable {
        let queue = Mutex(Queue())
        let wakeup = DispatchSemaphore(value: 0)
    }

    private let shared = Shared()

    /// Starts the thread.
    init(name: String) {
        let shared = shared
        let thread = Thread {
            var connection: LibPQConnection?
            while true {
                shared.wakeup.wait()
                let next: Job? = shared.queue.withLock { state in
                    state.jobs.isEmpty ? nil : state.jobs.removeFirst()
                }
                guard let next else { break }
                next(&connection)
            }
            // Closing here, on the owning thread, frees the PGconn (PQfinish).
            connection = nil
        }
        thread.name = name
        thread.start()
    }

    deinit { stop() }

    /// Queues `job`; `false` once the thread is stopping (the job will not run).
    @discardableResult
    func submit(_ job: @escaping Job) -> Bool {
        let accepted = shared.queue.withLock { state in
            guard !state.stopping else { return false }
            state.jobs.append(job)
            return true
        }
        if accepted { shared.wakeup.signal() }
        return accepted
    }

    /// Lets queued jobs finish, then closes the connection and ends the thread.
    func stop() {
        let first = shared.queue.withLock { state in
            defer { state.stopping = true }
            return !state.stopping
        }
        // An empty queue after a wake-up is the signal to exit.
        if first { shared.wakeup.signal() }
    }
}
