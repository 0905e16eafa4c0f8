import Foundation
import Synchronization

/// How a child process ended and the CPU time it used, as `wait4` reports it.
public struct ChildExit: Sendable {
    /// The exit code, or 128 + the signal number when a signal ended it.
    public let status: Int32
    /// User CPU seconds of the child (all its threads).
    public let userSeconds: Double
    /// System CPU seconds of the child (all its threads).
    public let systemSeconds: Double

    /// User plus system CPU seconds.
    public var cpuSeconds: Double { userSeconds + systemSeconds }
}

/// A process started with `posix_spawnp`: standard input from a file (`/dev/null` unless
/// given), standard output and error to files, signals unblocked and at their defaults. The one
/// way the project runs a child process (the benchmark, the embedded Postgres, the tests).
///
/// Only `wait4` on this child's own pid reaps it, here and nowhere else: never a wait for any
/// child, which would take the exit of another runner's process (Foundation's `Process` on
/// Linux then misses it and hangs). From async code it is reaped with non-blocking polls (never
/// a blocking wait on the cooperative pool), which also yields its CPU time; a thread of its own
/// may block in `waitUntilExit()`. Files, not pipes: a large output cannot stall the child on a
/// full pipe, and a daemon the child leaves behind cannot hold a pipe open.
///
/// Every live child is listed in ``ChildRegistry`` so that an interrupted run ends them.
public final class ChildProcess: Sendable {
    /// The process id.
    public let pid: pid_t
    /// A short name for reports and errors.
    public let name: String
    /// The command line, for the report.
    public let commandLine: [String]
    /// Where standard output goes.
    public let stdoutPath: String
    /// Where standard error goes.
    public let stderrPath: String
    private let ended = Mutex<ChildExit?>(nil)
    /// The write end of a `.lifeline` input, until `closeInput()`.
    private let lifeline: Mutex<Int32?>

    /// What a child reads on standard input.
    public enum Input: Sendable {
        /// A file (`/dev/null` unless another is named).
        case file(String)
        /// A pipe this process holds open until `closeInput()` or its own end: a server that
        /// reads its input to the end stops when the process that started it goes away.
        case lifeline
    }

    /// Starts `executable` (looked up on `PATH` when it has no slash) with `arguments`.
    /// - Parameters:
    ///   - environment: the full environment of the child (`nil`: this process's).
    ///   - input: what the child reads on standard input.
    ///   - stderrPath: where standard error goes; the same path as `stdoutPath` interleaves both
    ///     in one file.
    public init(name: String, executable: String, arguments: [String], environment: [String: String]? = nil,
                input: Input = .file("/dev/null"), stdoutPath: String, stderrPath: String) throws(ChildProcessError) {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        var pipeEnds: [Int32] = [-1, -1]
        switch input {
        case .file(let path):
            posix_spawn_file_actions_addopen(&actions, 0, path, O_RDONLY, 0)
        case .lifeline:
            guard pipe(&pipeEnds) == 0 else {
                throw ChildProcessError("cannot make an input pipe for \(name): \(String(cString: strerror(errno)))")
            }
            // Close-on-exec: no other child inherits either end (one holding the write end
            // would keep the input open after this process is gone). dup2 onto 0 clears it there.
            for end in pipeEnds { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
            posix_spawn_file_actions_adddup2(&actions, pipeEnds[0], 0)
        }
        defer { if pipeEnds[0] >= 0 { close(pipeEnds[0]) } }
        posix_spawn_file_actions_addopen(&actions, 1, stdoutPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        if stderrPath == stdoutPath {
            posix_spawn_file_actions_adddup2(&actions, 1, 2)
        } else {
            posix_spawn_file_actions_addopen(&actions, 2, stderrPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        }
        // Only 0, 1 and 2 cross into the child: a descriptor opened without close-on-exec
        // (a C library's socket, a test's listener) would otherwise stay open in every child,
        // holding ports and pipes past their owner's end.
        if let closeFrom = Self.addCloseFrom { _ = closeFrom(&actions, 3) }

        // The parent may block or ignore SIGINT/SIGTERM (the benchmark handles them on a dispatch
        // source; a test runner blocks SIGTERM): children get the defaults back, and an empty
        // mask, or SIGTERM would not stop them.
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
            if pipeEnds[1] >= 0 { close(pipeEnds[1]) }
            throw ChildProcessError("cannot start \(name) (\(executable)): \(String(cString: strerror(result)))")
        }
        self.lifeline = Mutex(pipeEnds[1] >= 0 ? pipeEnds[1] : nil)
        self.pid = pid
        self.name = name
        self.commandLine = argv
        self.stdoutPath = stdoutPath
        self.stderrPath = stderrPath
        ChildRegistry.shared.add(pid)
    }

    /// Closes a `.lifeline` input: the child reads to its end.
    public func closeInput() {
        if let writer = lifeline.withLock({ $0.take() }) { close(writer) }
    }

    deinit { closeInput() }

    /// The exit, once reaped.
    public var exit: ChildExit? { ended.withLock { $0 } }

    /// Reaps the child if it has ended; never blocks. The one place a child is reaped: `wait4`
    /// on its own pid.
    @discardableResult
    public func poll() -> ChildExit? {
        ended.withLock { ended in
            if let done = ended { return done }
            var status: Int32 = 0
            var usage = rusage()
            guard wait4(pid, &status, WNOHANG, &usage) == pid else { return nil }
            let done = Self.decode(status, usage)
            ended = done
            ChildRegistry.shared.remove(pid)
            return done
        }
    }

    /// Blocks the calling thread until the child ends (for callers on a thread of their own,
    /// never on the cooperative pool).
    @discardableResult
    public func waitUntilExit() -> ChildExit {
        while true {
            if let done = poll() { return done }
            // Sleeps until the child has ended without reaping it (WNOWAIT): `poll` reaps.
            var info = siginfo_t()
            _ = waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT)
        }
    }

    /// Whether it still runs (reaping it if it has ended).
    public var isRunning: Bool { poll() == nil }

    /// Sends `signal` (SIGTERM, SIGKILL…) unless it was already reaped.
    public func signal(_ signal: Int32) {
        guard exit == nil else { return }
        Foundation.kill(pid, signal)
    }

    private static func decode(_ status: Int32, _ usage: rusage) -> ChildExit {
        // WIFEXITED / WEXITSTATUS are macros Swift cannot import: decode the status word here.
        let signal = status & 0x7f
        let code = signal == 0 ? (status >> 8) & 0xff : 128 + signal
        return ChildExit(status: code, userSeconds: Self.seconds(usage.ru_utime), systemSeconds: Self.seconds(usage.ru_stime))
    }

    /// Waits for the child to end; past `timeout` it is killed (SIGKILL) and reaped.
    /// - Returns: the exit, and whether the timeout killed it.
    public func waitForExit(timeout: Duration) async -> (exit: ChildExit, killed: Bool) {
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
    public func stop(grace: Duration = .seconds(10)) async -> ChildExit {
        if let done = poll() { return done }
        Foundation.kill(pid, SIGTERM)
        return await waitForExit(timeout: grace).exit
    }

    /// The child's standard error so far.
    public var standardError: String { (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? "" }

    /// The child's standard output so far.
    public var standardOutput: String { (try? String(contentsOfFile: stdoutPath, encoding: .utf8)) ?? "" }

    /// The last `count` lines of the child's standard error (for error messages).
    public func standardErrorTail(_ count: Int = 15) -> String {
        let text = (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? ""
        return text.split(separator: "\n", omittingEmptySubsequences: true).suffix(count).joined(separator: "\n")
    }

    private static func seconds(_ time: timeval) -> Double {
        Double(time.tv_sec) + Double(time.tv_usec) / 1_000_000
    }

    /// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34+), looked up at run time: Swift's
    /// Glibc module does not define `_GNU_SOURCE`, so the header hides it.
    private static let addCloseFrom: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32)? = {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32).self)
    }()

    /// A NULL-terminated `char *[]` valid during `body` (what posix_spawn takes for argv/envp).
    private static func withCStrings<R>(_ strings: [String], _ body: ([UnsafeMutablePointer<CChar>?]) -> R) -> R {
        var pointers: [UnsafeMutablePointer<CChar>?] = strings.map { strdup($0) }
        pointers.append(nil)
        defer { for pointer in pointers { free(pointer) } }
        return body(pointers)
    }
}

/// A child process could not be started.
public struct ChildProcessError: Error, CustomStringConvertible {
    /// What went wrong.
    public let description: String
    /// Creates the error.
    public init(_ description: String) { self.description = description }
}
