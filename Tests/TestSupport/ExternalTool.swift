import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Runs an outside program (curl, nghttp, h2load, openssl, python3, chromium) for a test,
/// without blocking the cooperative pool: output goes to temporary files (a large output cannot
/// block the child on a full pipe) and termination is awaited through a continuation. The test
/// targets' one way to run a tool to completion.
public struct ExternalTool {
    /// What the program did.
    public struct Result: Sendable {
        /// The exit status (or the signal that ended it).
        public var status: Int32
        /// Everything it wrote to standard output.
        public var stdout: String
        /// Everything it wrote to standard error.
        public var stderr: String
    }

    /// Why a tool could not be run.
    public struct Failure: Error, CustomStringConvertible {
        /// What went wrong.
        public var description: String

        /// Creates a failure.
        public init(description: String) {
            self.description = description
        }
    }

    /// Runs `executable` (looked up on PATH via `/usr/bin/env`) with `arguments`, feeding `stdin`,
    /// and kills it after `timeout`.
    public static func run(
        _ executable: String, _ arguments: [String], stdin: Data = Data(),
        timeout: Duration = .seconds(60), currentDirectory: URL? = nil
    ) async throws -> Result {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("tool-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let inURL = scratch.appendingPathComponent("stdin")
        let outURL = scratch.appendingPathComponent("stdout")
        let errURL = scratch.appendingPathComponent("stderr")
        try stdin.write(to: inURL)
        try Data().write(to: outURL)
        try Data().write(to: errURL)

        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [executable] + arguments
        if let currentDirectory { process.currentDirectoryURL = currentDirectory }
        let input = try FileHandle(forReadingFrom: inURL)
        let output = try FileHandle(forWritingTo: outURL)
        let errors = try FileHandle(forWritingTo: errURL)
        defer {
            try? input.close()
            try? output.close()
            try? errors.close()
        }
        process.standardInput = input
        process.standardOutput = output
        process.standardError = errors

        let watchdog = Task {
            try await Task.sleep(for: timeout)
            kill(process)
        }
        defer { watchdog.cancel() }
        let status: Int32 = try await withCheckedThrowingContinuation { continuation in
            process.terminationHandler = { continuation.resume(returning: $0.terminationStatus) }
            do {
                try process.run()
            } catch {
                process.terminationHandler = nil
                continuation.resume(throwing: Failure(description: "cannot start \(executable): \(error)"))
            }
        }
        let stdout = (try? String(contentsOf: outURL, encoding: .utf8)) ?? ""
        let stderr = (try? String(contentsOf: errURL, encoding: .utf8)) ?? ""
        return Result(status: status, stdout: stdout, stderr: stderr)
    }

    /// Kills `process` with SIGKILL if it still runs. (SIGTERM is not enough: children of the
    /// test process inherit its mask of blocked signals, SIGTERM included.)
    public static func kill(_ process: Process) {
        guard process.isRunning else { return }
        _ = Glibc.kill(process.processIdentifier, SIGKILL)
    }

    /// The package root, found from this file's path (Tests/TestSupport/…).
    public static var packageRoot: URL {
        URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    }
}
