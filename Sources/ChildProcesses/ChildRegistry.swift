import Foundation
import Synchronization

/// The children still running, so that SIGINT or SIGTERM to the benchmark ends them too.
public final class ChildRegistry: Sendable {
    /// The one registry of this process.
    public static let shared = ChildRegistry()
    private let pids = Mutex<Set<pid_t>>([])

    /// Lists a started child.
    func add(_ pid: pid_t) { pids.withLock { _ = $0.insert(pid) } }

    /// Forgets a reaped child.
    func remove(_ pid: pid_t) { pids.withLock { _ = $0.remove(pid) } }

    private let cleanups = Mutex<[@Sendable () -> Void]>([])

    /// Sends `signal` to every listed child.
    public func signalAll(_ signal: Int32) {
        for pid in pids.withLock({ $0 }) { Foundation.kill(pid, signal) }
    }

    /// Adds work to do when the benchmark is interrupted (e.g. stop a server that is not a child).
    public func onInterrupt(_ cleanup: @escaping @Sendable () -> Void) { cleanups.withLock { $0.append(cleanup) } }

    /// Runs the interrupt work, once.
    public func runCleanups() {
        let work = cleanups.withLock { current in
            defer { current.removeAll() }
            return current
        }
        for cleanup in work { cleanup() }
    }
}
