import ChildProcesses
import Foundation

/// The built `scorecast` binary run as a real child process, for end-to-end tests.
///
/// A ``ChildProcess`` (the project's one runner) writing to files in a folder of its own;
/// `waitForLine` polls them. The process is killed when the value is deinitialised, so a
/// failing test leaves nothing behind.
public final class ScorecastProcess: Sendable {
    /// Where the package lives, found from this file's path.
    public static let packageRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The numbered SQL migrations as files (the binary carries the same files, embedded).
    public static let schemaFolder: URL = packageRoot.appendingPathComponent("Sources/Migrations/Schema")

    /// The built binary: the debug build that `swift build --build-tests` makes, else release.
    public static func binary() throws -> URL {
        for configuration in ["debug", "release"] {
            let url = packageRoot.appendingPathComponent(".build/\(configuration)/scorecast")
            if FileManager.default.isExecutableFile(atPath: url.path) { return url }
        }
        throw TestSupportError("the scorecast binary is not built: run `swift build` first")
    }

    private let child: ChildProcess
    private let folder: TemporaryFolder

    /// Starts `scorecast arguments…` with `environment` added to this process's environment
    /// (without its `SCORECAST_` variables); `executable` runs another copy of the binary.
    /// A `serve` without the api role gets a free ops port unless `environment` names one, so
    /// that tests running side by side never contend for the default.
    public init(_ arguments: [String], environment: [String: String] = [:], workingDirectory: URL? = nil, executable: URL? = nil) throws {
        let binary = try executable ?? Self.binary()
        var base = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("SCORECAST_") }
        base["SCORECAST_OPS_PORT"] = "0"
        base.merge(environment) { _, new in new }
        folder = try TemporaryFolder("scorecast-process")
        // `env -C` starts it in `workingDirectory` (the same pid: env executes the binary).
        let (launcher, prefix) = workingDirectory.map { ("/usr/bin/env", ["-C", $0.path, binary.path]) } ?? (binary.path, [])
        do {
            child = try ChildProcess(
                name: "scorecast", executable: launcher, arguments: prefix + arguments, environment: base,
                stdoutPath: folder.url.appendingPathComponent("stdout").path,
                stderrPath: folder.url.appendingPathComponent("stderr").path)
        } catch {
            folder.remove()
            throw TestSupportError("\(error)")
        }
    }

    deinit {
        if child.isRunning {
            child.signal(SIGKILL)
            child.waitUntilExit()
        }
        folder.remove()
    }

    /// Everything written to standard output so far.
    public var output: String { child.standardOutput }
    /// Everything written to standard error so far.
    public var errorOutput: String { child.standardError }
    /// The child's pid.
    public var pid: Int32 { child.pid }
    /// Whether it still runs.
    public var isRunning: Bool { child.isRunning }

    /// Sends a signal (SIGTERM, SIGKILL…).
    public func signal(_ number: Int32) { child.signal(number) }

    /// Waits for the process to end, up to `timeout` (by default only a hang's bound); returns
    /// its exit code, or nil on timeout.
    public func waitForExit(timeout: Duration = hangDeadline) async -> Int32? {
        let deadline = ContinuousClock.now + timeout
        while true {
            if let exit = child.poll() { return exit.status }
            if ContinuousClock.now > deadline { return nil }
            try? await Task.sleep(for: .milliseconds(20))
        }
    }

    /// Waits until standard output or error has a line containing `text`; returns that line.
    public func waitForLine(containing text: String, timeout: Duration = hangDeadline) async throws -> String {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            let exit = child.poll()
            for line in (output + "\n" + errorOutput).split(separator: "\n") where line.contains(text) {
                return String(line)
            }
            if let exit {
                throw TestSupportError("scorecast exited (\(exit.status)) before printing \"\(text)\"; stderr:\n\(errorOutput)")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw TestSupportError("timed out waiting for \"\(text)\"; stdout:\n\(output)\nstderr:\n\(errorOutput)")
    }

    /// Runs `scorecast arguments…` to completion; returns exit code, stdout and stderr. Past
    /// `timeout` (by default only a hang's bound) it is killed and the run fails.
    public static func run(
        _ arguments: [String], environment: [String: String] = [:], timeout: Duration = hangDeadline
    ) async throws -> (code: Int32, stdout: String, stderr: String) {
        let process = try ScorecastProcess(arguments, environment: environment)
        guard let code = await process.waitForExit(timeout: timeout) else {
            process.signal(SIGKILL)
            throw TestSupportError("scorecast \(arguments.joined(separator: " ")) did not finish in \(timeout); stderr:\n\(process.errorOutput)")
        }
        // Files, not pipes: everything the child wrote is there once it has exited.
        return (code, process.output, process.errorOutput)
    }
}

/// A test harness failure with a message.
public struct TestSupportError: Error, CustomStringConvertible {
    /// What went wrong.
    public let description: String
    /// Creates the error.
    public init(_ description: String) { self.description = description }
}
