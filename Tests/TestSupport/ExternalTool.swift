import ChildProcesses
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Runs an outside program (curl, nghttp, h2load, openssl, python3, chromium) for a test,
/// without blocking the cooperative pool: a ``ChildProcess`` (the project's one runner) with its
/// input and output in temporary files, reaped by polls, killed past its timeout. The test
/// targets' one way to run a tool to completion.
public struct ExternalTool {
    /// What the program did.
    public struct Result: Sendable {
        /// The exit status (128 + the signal number when a signal ended it).
        public var status: Int32
        /// Everything it wrote to standard output.
        public var stdout: String
        /// Everything it wrote to standard error.
        public var stderr: String
        /// Whether it exited 0.
        public var succeeded: Bool { status == 0 }
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
    /// and kills it after `timeout` (by default only a hang's bound).
    public static func run(
        _ executable: String, _ arguments: [String], stdin: Data = Data(),
        timeout: Duration = hangDeadline, currentDirectory: URL? = nil
    ) async throws -> Result {
        let scratch = try TemporaryFolder("tool")
        defer { scratch.remove() }
        let inPath = try scratch.write("stdin", Array(stdin))
        let outPath = scratch.url.appendingPathComponent("stdout").path
        let errPath = scratch.url.appendingPathComponent("stderr").path
        let directory = currentDirectory.map { ["-C", $0.path] } ?? []
        let child: ChildProcess
        do {
            child = try ChildProcess(
                name: executable, executable: "/usr/bin/env", arguments: directory + [executable] + arguments,
                input: .file(inPath), stdoutPath: outPath, stderrPath: errPath)
        } catch {
            throw Failure(description: "cannot start \(executable): \(error)")
        }
        let (exit, _) = await child.waitForExit(timeout: timeout)
        return Result(status: exit.status, stdout: child.standardOutput, stderr: child.standardError)
    }

    /// Runs `executable` like `run`, feeding `input`, and returns its standard output; throws
    /// naming the tool and its standard error unless it exits 0.
    public static func require(_ executable: String, _ arguments: [String], input: [UInt8] = []) async throws -> String {
        let result = try await run(executable, arguments, stdin: Data(input))
        guard result.succeeded else {
            throw Failure(description: "\(executable) \(arguments.first ?? "") failed (\(result.status)): \(result.stderr)")
        }
        return result.stdout
    }

    /// The package root, found from this file's path (Tests/TestSupport/…).
    public static var packageRoot: URL {
        URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    }
}
