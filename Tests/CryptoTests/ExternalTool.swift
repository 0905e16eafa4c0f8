import Foundation
import Testing

/// The outcome of one external command.
struct ToolResult {
    let status: Int32
    let stdout: String
    let stderr: String
    var succeeded: Bool { status == 0 }
}

/// Runs real neighbours (openssl, python3, curl) found on PATH, as CI provides them.
enum ExternalTool {
    /// Runs `tool` with `arguments` (through `/usr/bin/env`, so PATH applies), optionally feeding
    /// `input` on stdin, and waits for it. Output goes through files so large outputs cannot
    /// block the child on a full pipe.
    static func run(_ tool: String, _ arguments: [String], input: [UInt8]? = nil) throws -> ToolResult {
        let folder = try TemporaryFolder()
        let outURL = URL(fileURLWithPath: folder.path + "/stdout")
        let errURL = URL(fileURLWithPath: folder.path + "/stderr")
        try Data().write(to: outURL)
        try Data().write(to: errURL)
        let outHandle = try FileHandle(forWritingTo: outURL)
        let errHandle = try FileHandle(forWritingTo: errURL)
        defer {
            try? outHandle.close()
            try? errHandle.close()
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [tool] + arguments
        process.standardOutput = outHandle
        process.standardError = errHandle
        let stdinPipe = Pipe()
        process.standardInput = input == nil ? FileHandle.nullDevice : stdinPipe
        try process.run()
        if let input {
            try stdinPipe.fileHandleForWriting.write(contentsOf: Data(input))
            try stdinPipe.fileHandleForWriting.close()
        }
        process.waitUntilExit()
        let stdout = (try? String(contentsOf: outURL, encoding: .utf8)) ?? ""
        let stderr = (try? String(contentsOf: errURL, encoding: .utf8)) ?? ""
        return ToolResult(status: process.terminationStatus, stdout: stdout, stderr: stderr)
    }

    /// Runs `tool` and records a test failure (with its stderr) unless it exits 0.
    static func require(
        _ tool: String, _ arguments: [String], input: [UInt8]? = nil,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> String {
        let result = try run(tool, arguments, input: input)
        #expect(result.succeeded, "\(tool) \(arguments.first ?? "") failed (\(result.status)): \(result.stderr)", sourceLocation: sourceLocation)
        return result.stdout
    }
}

/// A fresh folder under the system temp folder, removed when the value is released.
final class TemporaryFolder {
    let path: String

    init() throws {
        let base = NSTemporaryDirectory() + "crypto-tests-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: base, withIntermediateDirectories: true)
        path = base
    }

    /// Writes `text` to `name` in this folder and returns the file's path.
    func write(_ name: String, _ text: String) throws -> String {
        try write(name, Array(text.utf8))
    }

    /// Writes `bytes` to `name` in this folder and returns the file's path.
    func write(_ name: String, _ bytes: [UInt8]) throws -> String {
        let file = path + "/" + name
        try Data(bytes).write(to: URL(fileURLWithPath: file))
        return file
    }

    deinit {
        try? FileManager.default.removeItem(atPath: path)
    }
}
