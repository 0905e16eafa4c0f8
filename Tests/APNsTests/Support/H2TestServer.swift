import Crypto
import Foundation
@testable import APNs

/// A real HTTP/2 TLS server (hyper-h2 in a python3 process) started for one test, with a fresh
/// self-signed certificate the client trusts through its CA file.
final class H2TestServer: @unchecked Sendable {
    // @unchecked: every property is set in init and never changed; Process is only
    // touched again by stop(), which tests call once.
    let port: Int
    let caFile: String
    let folder: URL
    private let process: Process
    private let stdinPipe: Pipe

    struct Options {
        var maxConcurrentStreams = 1000
        var goAwayAfter = 0
        var cutAfter = 0
        var silent = false
        var delayMilliseconds = 0
        var expireFirstToken = false
        var alwaysExpired = false
        var failFirst = 0
        var failStatus = 503
        var failReason = "ServiceUnavailable"
        /// The names the server's certificate is issued for.
        var certificateNames = ["localhost", "127.0.0.1"]
    }

    init(_ options: Options = Options()) async throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("apns-h2-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let (certificate, key) = try SelfSignedCertificate.generate(
            commonName: options.certificateNames.first ?? "localhost", subjectAlternativeNames: options.certificateNames, validityDays: 1)
        let certFile = folder.appendingPathComponent("cert.pem")
        let keyFile = folder.appendingPathComponent("key.pem")
        let scriptFile = folder.appendingPathComponent("h2_test_server.py")
        try certificate.write(to: certFile, atomically: true, encoding: .utf8)
        try key.write(to: keyFile, atomically: true, encoding: .utf8)
        try H2TestServerScript.source.write(to: scriptFile, atomically: true, encoding: .utf8)
        caFile = certFile.path

        var arguments = ["python3", scriptFile.path, "--cert", certFile.path, "--key", keyFile.path,
                         "--max-concurrent-streams", String(options.maxConcurrentStreams),
                         "--delay-ms", String(options.delayMilliseconds)]
        if options.goAwayAfter > 0 { arguments += ["--goaway-after", String(options.goAwayAfter)] }
        if options.cutAfter > 0 { arguments += ["--cut-after", String(options.cutAfter)] }
        if options.silent { arguments.append("--silent") }
        if options.expireFirstToken { arguments.append("--expire-first-token") }
        if options.alwaysExpired { arguments.append("--always-expired") }
        if options.failFirst > 0 {
            arguments += ["--fail-first", String(options.failFirst), "--fail-status", String(options.failStatus),
                          "--fail-reason", options.failReason]
        }

        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        stdinPipe = Pipe()
        let stdoutPipe = Pipe()
        process.standardInput = stdinPipe
        process.standardOutput = stdoutPipe
        // The server's own complaints (tracebacks on stop) go to a file, not the test log.
        let logFile = folder.appendingPathComponent("server.log")
        _ = FileManager.default.createFile(atPath: logFile.path, contents: nil)
        process.standardError = try FileHandle(forWritingTo: logFile)
        try process.run()
        let line = await Self.readLine(stdoutPipe.fileHandleForReading)
        guard let data = line.data(using: .utf8),
              let object = try JSONSerialization.jsonObject(with: data) as? [String: Any],
              let port = object["port"] as? Int else {
            kill(process.processIdentifier, SIGKILL)
            let log = (try? String(contentsOf: logFile, encoding: .utf8)) ?? ""
            throw TestServerError("the h2 test server did not start (is python3 with the h2 package installed?): \(line) \(log)")
        }
        self.port = port
    }

    var endpoint: APNsEndpoint { APNsEndpoint(host: "localhost", port: port, caFile: caFile) }

    /// The server's counters (connections, requests, max_concurrent, goaways, paths…), read
    /// over a separate HTTP/2 connection that is not counted.
    func stats() async throws -> [String: Any] {
        let transport = try HTTP2Transport(options: TestTransport.options(connections: 1), logger: TestLog.logger)
        defer { Task { await transport.shutdown() } }
        let response = try await transport.perform(
            HTTPRequest(method: .get, endpoint: endpoint, path: "/_stats"), timeout: .seconds(5))
        guard let object = try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any] else {
            throw TestServerError("unreadable stats")
        }
        return object
    }

    /// Freezes the server process (SIGSTOP): connections stay open but nothing is answered,
    /// not even PING: a peer that is gone without closing.
    func pause() {
        kill(process.processIdentifier, SIGSTOP)
    }

    /// Lets a paused server run again.
    func resume() {
        kill(process.processIdentifier, SIGCONT)
    }

    func stop() {
        try? stdinPipe.fileHandleForWriting.close()
        // Children of the test process inherit its blocked SIGTERM (terminate() would do
        // nothing), and waiting on one that never exits would hold a cooperative thread for
        // good: SIGKILL cannot be blocked.
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        try? FileManager.default.removeItem(at: folder)
    }

    /// Reads one line off the cooperative pool (a blocking read).
    static func readLine(_ handle: FileHandle) async -> String {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                var bytes: [UInt8] = []
                while true {
                    let chunk = handle.readData(ofLength: 1)
                    guard let byte = chunk.first, byte != UInt8(ascii: "\n") else { break }
                    bytes.append(byte)
                }
                continuation.resume(returning: String(decoding: bytes, as: UTF8.self))
            }
        }
    }
}

struct TestServerError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
