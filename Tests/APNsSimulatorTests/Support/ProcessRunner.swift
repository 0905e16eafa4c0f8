import Foundation

/// The result of running a command-line tool.
struct ProcessOutput: Sendable {
    let exitCode: Int32
    let stdout: String
    let stderr: String
}

/// Runs command-line tools (curl, openssl, nghttp, h2load, python3) on a dedicated thread, so
/// waiting never blocks Swift's cooperative pool.
enum ProcessRunner {
    /// Runs `executable` (looked up on PATH) with `arguments`; `stdin` is written first if given.
    static func run(_ executable: String, _ arguments: [String], stdin: String? = nil) async throws -> ProcessOutput {
        try await withCheckedThrowingContinuation { continuation in
            let thread = Thread {
                let process = Process()
                process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
                process.arguments = [executable] + arguments
                let output = Pipe()
                let errors = Pipe()
                let input = Pipe()
                process.standardOutput = output
                process.standardError = errors
                process.standardInput = input
                do {
                    try process.run()
                } catch {
                    continuation.resume(throwing: error)
                    return
                }
                if let stdin { input.fileHandleForWriting.write(Data(stdin.utf8)) }
                try? input.fileHandleForWriting.close()
                // stderr is drained on its own thread so neither pipe can fill up and stall the tool.
                let errorData = ErrorCollector(errors.fileHandleForReading)
                let outData = output.fileHandleForReading.readDataToEndOfFile()
                process.waitUntilExit()
                continuation.resume(returning: ProcessOutput(
                    exitCode: process.terminationStatus,
                    stdout: String(decoding: outData, as: UTF8.self),
                    stderr: String(decoding: errorData.finish(), as: UTF8.self)))
            }
            thread.start()
        }
    }
}

/// Reads a pipe to its end on a background thread.
private final class ErrorCollector: @unchecked Sendable {
    // @unchecked Sendable: `data` is written by the reading thread before `done` is signalled
    // and read only after waiting on it.
    private var data = Data()
    private let done = DispatchSemaphore(value: 0)

    init(_ handle: FileHandle) {
        let thread = Thread { [self] in
            data = handle.readDataToEndOfFile()
            done.signal()
        }
        thread.start()
    }

    func finish() -> Data {
        done.wait()
        return data
    }
}
