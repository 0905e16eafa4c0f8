import ScorecastCrypto
import Foundation
import TestSupport
@testable import APNs

/// A real HTTP/2 TLS server (hyper-h2 in a python3 process) started for one test, with a fresh
/// self-signed certificate the client trusts through its CA file.
final class H2TestServer: @unchecked Sendable {
    // @unchecked: every property is set in init and never changed; stop() is called once.
    let port: Int
    let caFile: String
    let folder: URL
    private let server: ServerProcess

    struct Options {
        var maxConcurrentStreams = 1000
        var goAwayAfter = 0
        /// When this request arrives, GOAWAY names the stream before it: it is never processed.
        var goAwayBefore = 0
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

        var arguments = [scriptFile.path, "--cert", certFile.path, "--key", keyFile.path,
                         "--max-concurrent-streams", String(options.maxConcurrentStreams),
                         "--delay-ms", String(options.delayMilliseconds)]
        if options.goAwayAfter > 0 { arguments += ["--goaway-after", String(options.goAwayAfter)] }
        if options.goAwayBefore > 0 { arguments += ["--goaway-before", String(options.goAwayBefore)] }
        if options.cutAfter > 0 { arguments += ["--cut-after", String(options.cutAfter)] }
        if options.silent { arguments.append("--silent") }
        if options.expireFirstToken { arguments.append("--expire-first-token") }
        if options.alwaysExpired { arguments.append("--always-expired") }
        if options.failFirst > 0 {
            arguments += ["--fail-first", String(options.failFirst), "--fail-status", String(options.failStatus),
                          "--fail-reason", options.failReason]
        }

        // The server's own complaints (tracebacks on stop) go to a file, not the test log.
        let server = try ServerProcess("h2-test-server", "python3", arguments)
        let line: String
        do {
            line = try await server.firstLine()
        } catch {
            server.stop()
            throw TestServerError("the h2 test server did not start (is python3 with the h2 package installed?): \(error)")
        }
        guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
              let port = object["port"] as? Int else {
            let log = server.errorOutput
            server.stop()
            throw TestServerError("the h2 test server did not start (is python3 with the h2 package installed?): \(line) \(log)")
        }
        self.server = server
        self.port = port
    }

    var endpoint: APNsEndpoint { APNsEndpoint(host: "localhost", port: port, caFile: caFile) }

    /// The server's counters (connections, requests, max_concurrent, goaways, paths…), read
    /// over a separate HTTP/2 connection that is not counted.
    func stats() async throws -> [String: Any] {
        let transport = try HTTP2Transport(options: TestTransport.options(connections: 1), logger: TestLog.logger)
        defer { Task { await transport.shutdown() } }
        let response = try await transport.perform(
            HTTPRequest(method: .get, endpoint: endpoint, path: "/_stats"), timeout: hangDeadline)
        guard let object = try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any] else {
            throw TestServerError("unreadable stats")
        }
        return object
    }

    /// Freezes the server process (SIGSTOP): connections stay open but nothing is answered,
    /// not even PING: a peer that is gone without closing.
    func pause() {
        server.signal(SIGSTOP)
    }

    /// Lets a paused server run again.
    func resume() {
        server.signal(SIGCONT)
    }

    func stop() {
        server.stop()
        try? FileManager.default.removeItem(at: folder)
    }
}

struct TestServerError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
