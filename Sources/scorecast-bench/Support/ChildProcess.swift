import Foundation
import Synchronization

/// How a child process ended and the CPU time it used, as `wait4` reports it.
struct ChildExit: Sendable {
    /// The exit code, or 128 + the signal number when a signal ended it.
    let status: Int32
    /// User CPU seconds of the child (all its threads).
    let userSeconds: Double
    /// System CPU seconds of the child (all its threads).
    let systemSeconds: Double

    /// User plus system CPU seconds.
    var cpuSeconds: Double { userSeconds + systemSeconds }
}

/// A process started with `posix_spawnp`: standard input from `/dev/null`, standard output and
/// error to files, signals unblocked and at their defaults. It is reaped with non-blocking
/// `wait4` polls (never a blocking wait on the cooperative pool), which also yields its CPU time.
///
/// Every live child is listed in ``ChildRegistry`` so that an interrupted benchmark ends them.
final class ChildProcess: Sendable {
    /// The process id.
    let pid: pid_t
    /// A short name for reports and errors.
    let name: String
    /// The command line, for the report.
    let commandLine: [String]
    /// Where standard output goes.
    let stdoutPath: String
    /// Where standard error goes.
    let stderrPath: String
    private let ended = Mutex<ChildExit?>(nil)

    /// Starts `executable` (looked up on `PATH` when it has no slash) with `arguments`.
    /// - Parameter environment: the full environment of the child (`nil`: this process's).
    init(name: String, executable: String, arguments: [String], environment: [String: String]? = nil,
         stdoutPath: String, stderrPath: String) throws(BenchError) {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, stdoutPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_addopen(&actions, 2, stderrPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)

        // The benchmark ignores SIGINT/SIGTERM itself (it handles them on a dispatch source);
        // children must get the defaults back, and an empty mask, or SIGTERM would not stop them.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var emptyMask = sigset_t()
        sigemptyset(&emptyMask)
        posix_spawnattr_setsigmask(&attributes, &emptyMask)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGTERM, SIGINT, SIGPIPE, SIGHUP] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        let argv = [executable] + arguments
        let environmentLines = (environment ?? ProcessInfo.processInfo.environment).map { "\($0.key)=\($0.value)" }
        var pid: pid_t = 0
        let result = Self.withCStrings(argv) { argvPointer in
            Self.withCStrings(environmentLines) { environmentPointer in
                posix_spawnp(&pid, executable, &actions, &attributes, argvPointer, environmentPointer)
            }
        }
        guard result == 0 else {
            throw BenchError("cannot start \(name) (\(executable)): \(String(cString: strerror(result)))")
        }
        self.pid = pid
        self.name = name
        self.commandLine = argv
        self.stdoutPath = stdoutPath
        self.stderrPath = stderrPath
        ChildRegistry.shared.add(pid)
    }

    /// The exit, once reaped.
    var exit: ChildExit? { ended.withLock { $0 } }

    /// Reaps the child if it has ended; never blocks.
    @discardableResult
    func poll() -> ChildExit? {
        if let done = exit { return done }
        var status: Int32 = 0
        var usage = rusage()
        let result = wait4(pid, &status, WNOHANG, &usage)
        guard result == pid else { return nil }
        // WIFEXITED / WEXITSTATUS are macros Swift cannot import: decode the status word here.
        let signal = status & 0x7f
        let code = signal == 0 ? (status >> 8) & 0xff : 128 + signal
        let done = ChildExit(status: code, userSeconds: Self.seconds(usage.ru_utime), systemSeconds: Self.seconds(usage.ru_stime))
        ended.withLock { $0 = done }
        ChildRegistry.shared.remove(pid)
        return done
    }

    /// Waits for the child to end; past `timeout` it is killed (SIGKILL) and reaped.
    /// - Returns: the exit, and whether the timeout killed it.
    func waitForExit(timeout: Duration) async -> (exit: ChildExit, killed: Bool) {
        let deadline = ContinuousClock.now + timeout
        var killed = false
        while true {
            if let done = poll() { return (done, killed) }
            if !killed && ContinuousClock.now >= deadline {
                Foundation.kill(pid, SIGKILL)
                killed = true
            }
            try? await Task.sleep(for: .milliseconds(5))
        }
    }

    /// Asks the child to stop (SIGTERM) and waits up to `grace`, then kills it.
    @discardableResult
    func stop(grace: Duration = .seconds(10)) async -> ChildExit {
        if let done = poll() { return done }
        Foundation.kill(pid, SIGTERM)
        return await waitForExit(timeout: grace).exit
    }

    /// The child's standard output so far.
    var standardOutput: String { (try? String(contentsOfFile: stdoutPath, encoding: .utf8)) ?? "" }

    /// The last `count` lines of the child's standard error (for error messages).
    func standardErrorTail(_ count: Int = 15) -> String {
        let text = (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? ""
        return text.split(separator: "\n", omittingEmptySubsequences: true).suffix(count).joined(separator: "\n")
    }

    private static func seconds(_ time: timeval) -> Double {
        Double(time.tv_sec) + Double(time.tv_usec) / 1_000_000
    }

    /// A NULL-terminated `char *[]` valid during `body` (what posix_spawn takes for argv/envp).
    private static func withCStrings<R>(_ strings: [String], _ body: ([UnsafeMutablePointer<CChar>?]) -> R) -> R {
        var pointers: [UnsafeMutablePointer<CChar>?] = strings.map { strdup($0) }
        pointers.append(nil)
        defer { for pointer in pointers { free(pointer) } }
        return body(pointers)
    }
}

/// The children still running, so that SIGINT or SIGTERM to the benchmark ends them too.
final class ChildRegistry: Sendable {
    /// The one registry of this process.
    static let shared = ChildRegistry()
    private let pids = Mutex<Set<pid_t>>([])

    /// Lists a started child.
    func add(_ pid: pid_t) { pids.withLock { _ = $0.insert(pid) } }

    /// Forgets a reaped child.
    func remove(_ pid: pid_t) { pids.withLock { _ = $0.remove(pid) } }

    private let cleanups = Mutex<[@Sendable () -> Void]>([])

    /// Sends `signal` to every listed child.
    func signalAll(_ signal: Int32) {
        for pid in pids.withLock({ $0 }) { Foundation.kill(pid, signal) }
    }

    /// Adds work to do when the benchmark is interrupted (e.g. stop a server that is not a child).
    func onInterrupt(_ cleanup: @escaping @Sendable () -> Void) { cleanups.withLock { $0.append(cleanup) } }

    /// Runs the interrupt work, once.
    func runCleanups() {
        let work = cleanups.withLock { current in
            defer { current.removeAll() }
            return current
        }
        for cleanup in work { cleanup() }
    }
}
