import Foundation
import Synchronization

/// The built `scorecast` binary run as a real child process, for end-to-end tests.
///
/// Output is collected in memory; `waitForLine` polls it. The process is killed when the value
/// is deinitialised, so a failing test leaves nothing behind.
public final class ScorecastProcess: Sendable {
    /// Where the package lives, found from this file's path.
    public static let packageRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The built binary: the debug build that `swift build --build-tests` makes, else release.
    public static func binary() throws -> URL {
        for configuration in ["debug", "release"] {
            let url = packageRoot.appendingPathComponent(".build/\(configuration)/scorecast")
            if FileManager.default.isExecutableFile(atPath: url.path) { return url }
        }
        throw TestSupportError("the scorecast binary is not built: run `swift build` first")
    }

    // Process is thread-safe for the calls used here (terminate, processIdentifier,
    // isRunning, waitUntilExit) but is not marked Sendable.
    private struct Child: @unchecked Sendable { let process: Process }

    private let child: Child
    /// Bytes a pipe handler appends to while tests read them.
    private final class Buffer: Sendable {
        let bytes = Mutex<[UInt8]>([])
        /// Set when the pipe reached end of file: everything the child wrote is in `bytes`.
        let finished = Mutex(false)
        var text: String { String(decoding: bytes.withLock { $0 }, as: UTF8.self) }
        var isFinished: Bool { finished.withLock { $0 } }

        func append(_ data: Data) {
            if data.isEmpty {
                finished.withLock { $0 = true }
            } else {
                bytes.withLock { $0.append(contentsOf: data) }
            }
        }
    }

    private let stdout = Buffer()
    private let stderr = Buffer()

    /// Starts `scorecast arguments…` with `environment` added to a minimal base environment;
    /// `executable` runs another copy of the binary.
    public init(_ arguments: [String], environment: [String: String] = [:], workingDirectory: URL? = nil, executable: URL? = nil) throws {
        let process = Process()
        process.executableURL = try executable ?? Self.binary()
        process.arguments = arguments
        var base = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("SCORECAST_") }
        base.merge(environment) { _, new in new }
        process.environment = base
        if let workingDirectory { process.currentDirectoryURL = workingDirectory }
        let outPipe = Pipe()
        let errPipe = Pipe()
        process.standardOutput = outPipe
        process.standardError = errPipe
        process.standardInput = FileHandle.nullDevice
        child = Child(process: process)
        outPipe.fileHandleForReading.readabilityHandler = { [stdout] handle in
            let data = handle.availableData
            if data.isEmpty { handle.readabilityHandler = nil }
            stdout.append(data)
        }
        errPipe.fileHandleForReading.readabilityHandler = { [stderr] handle in
            let data = handle.availableData
            if data.isEmpty { handle.readabilityHandler = nil }
            stderr.append(data)
        }
        try process.run()
    }

    deinit {
        if child.process.isRunning { kill(child.process.processIdentifier, SIGKILL) }
    }

    /// Everything written to standard output so far.
    public var output: String { stdout.text }
    /// Everything written to standard error so far.
    public var errorOutput: String { stderr.text }
    /// The child's pid.
    public var pid: Int32 { child.process.processIdentifier }
    /// Whether it still runs.
    public var isRunning: Bool { child.process.isRunning }

    /// Sends a signal (SIGTERM, SIGKILL…).
    public func signal(_ number: Int32) { kill(child.process.processIdentifier, number) }

    /// Waits for the process to end, up to `timeout` (by default only a hang's bound); returns
    /// its exit code, or nil on timeout.
    public func waitForExit(timeout: Duration = hangDeadline) async -> Int32? {
        let deadline = ContinuousClock.now + timeout
        while child.process.isRunning {
            if ContinuousClock.now > deadline { return nil }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return child.process.terminationStatus
    }

    /// Waits until standard output or error has a line containing `text`; returns that line.
    public func waitForLine(containing text: String, timeout: Duration = hangDeadline) async throws -> String {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            for line in (output + "\n" + errorOutput).split(separator: "\n") where line.contains(text) {
                return String(line)
            }
            if !child.process.isRunning && !(output + errorOutput).contains(text) {
                throw TestSupportError("scorecast exited (\(child.process.terminationStatus)) before printing \"\(text)\"; stderr:\n\(errorOutput)")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw TestSupportError("timed out waiting for \"\(text)\"; stdout:\n\(output)\nstderr:\n\(errorOutput)")
    }

    /// Runs `scorecast arguments…` to completion; returns exit code, stdout and stderr.
    public static func run(
        _ arguments: [String], environment: [String: String] = [:], timeout: Duration = .seconds(60)
    ) async throws -> (code: Int32, stdout: String, stderr: String) {
        let process = try ScorecastProcess(arguments, environment: environment)
        guard let code = await process.waitForExit(timeout: timeout) else {
            process.signal(SIGKILL)
            throw TestSupportError("scorecast \(arguments.joined(separator: " ")) did not finish in \(timeout)")
        }
        // The child has exited; wait for both pipes to reach end of file so no output is lost
        // (a grandchild holding a pipe open would keep it from closing: bounded wait).
        let drained = ContinuousClock.now + .seconds(5)
        while !(process.stdout.isFinished && process.stderr.isFinished) && ContinuousClock.now < drained {
            try await Task.sleep(for: .milliseconds(5))
        }
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
