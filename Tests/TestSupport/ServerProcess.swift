import ChildProcesses
import Foundation

/// A helper program a test runs for its length (a TLS server, a proxy): a ``ChildProcess`` (the
/// project's one runner) with a lifeline input, so that it stops when the test process goes
/// away, its output in files of a folder of its own, and a stop that kills and reaps it.
public final class ServerProcess: Sendable {
    /// A short name for failures.
    public let name: String
    private let child: ChildProcess
    private let folder: TemporaryFolder

    /// Starts `executable` (looked up on PATH via `/usr/bin/env`) with `arguments`.
    public init(_ name: String, _ executable: String, _ arguments: [String]) throws {
        self.name = name
        let folder = try TemporaryFolder("server-\(name)")
        self.folder = folder
        do {
            child = try ChildProcess(
                name: name, executable: "/usr/bin/env", arguments: [executable] + arguments, input: .lifeline,
                stdoutPath: folder.url.appendingPathComponent("stdout").path,
                stderrPath: folder.url.appendingPathComponent("stderr").path)
        } catch {
            folder.remove()
            throw TestSupportError("cannot start \(name): \(error)")
        }
    }

    /// Its pid.
    public var pid: Int32 { child.pid }
    /// Whether it still runs.
    public var isRunning: Bool { child.isRunning }
    /// Everything it wrote to standard output so far.
    public var output: String { child.standardOutput }
    /// Everything it wrote to standard error so far.
    public var errorOutput: String { child.standardError }

    /// Waits for its first whole line on standard output (a server announcing its port); fails
    /// naming it when it exits first, or says nothing by the hang deadline.
    public func firstLine() async throws -> String {
        var line = ""
        try await eventually("\(name) prints its first line") {
            let text = output
            if let end = text.firstIndex(of: "\n") {
                line = String(text[..<end])
                return true
            }
            if let exit = child.poll() {
                throw TestSupportError("\(name) exited (\(exit.status)) before printing a line: \(errorOutput)")
            }
            return false
        }
        return line
    }

    /// Waits until it accepts TCP connections on 127.0.0.1:`port`; fails naming it when it
    /// exits first, or does not listen by the hang deadline.
    public func waitUntilListening(on port: Int) async throws {
        try await eventually("\(name) listens on \(port)", every: .milliseconds(20)) {
            if let exit = child.poll() {
                throw TestSupportError("\(name) exited (\(exit.status)) before listening on \(port): \(errorOutput)")
            }
            return FreePort.isListening(port)
        }
    }

    /// Ends its input (a program reading it to the end takes that as "stop").
    public func closeInput() { child.closeInput() }

    /// Sends `signal` (SIGSTOP, SIGCONT…).
    public func signal(_ signal: Int32) { child.signal(signal) }

    /// Stops it (its input ends, then SIGKILL), reaps it and removes its folder.
    public func stop() {
        child.closeInput()
        child.signal(SIGKILL)
        child.waitUntilExit()
        folder.remove()
    }
}
