import Foundation
import TestSupport

/// A real HTTP proxy (Debian's `tinyproxy`) on a free loopback port, with its own config file,
/// log and optional Basic credentials: the client's `CONNECT` tunnels go through it.
final class TinyProxy: @unchecked Sendable {
    // @unchecked: set once in init; stop() is called once by the test.
    let port: Int
    private let folder: URL
    private let logFile: URL
    private let server: ServerProcess

    /// Starts tinyproxy; `credentials` (user, password) makes it demand Basic authentication.
    init(credentials: (user: String, password: String)? = nil) async throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("apns-tinyproxy-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        logFile = folder.appendingPathComponent("tinyproxy.log")
        port = try FreePort.find()
        var lines = [
            "Port \(port)", "Listen 127.0.0.1", "Timeout 60", "MaxClients 64", "Allow 127.0.0.1",
            "LogLevel Connect", "LogFile \"\(logFile.path)\"",
        ]
        if let credentials { lines.append("BasicAuth \(credentials.user) \(credentials.password)") }
        let configFile = folder.appendingPathComponent("tinyproxy.conf")
        try (lines.joined(separator: "\n") + "\n").write(to: configFile, atomically: true, encoding: .utf8)
        let server = try ServerProcess("tinyproxy", "tinyproxy", ["-d", "-c", configFile.path])
        self.server = server
        // Ready when it accepts connections (however long a loaded machine takes; a 4 s bound
        // was a margin); one that exits or never listens fails, naming it.
        do {
            try await server.waitUntilListening(on: port)
        } catch {
            stop()
            throw TestServerError("tinyproxy did not listen on \(port) (apt-get install tinyproxy): \(error)")
        }
    }

    /// The tunnels tinyproxy was asked for, as `host:port` targets, in order.
    func connectTargets() -> [String] {
        let text = (try? String(contentsOf: logFile, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { line in
            guard let range = line.range(of: "Request (file descriptor"), let connect = line[range.upperBound...].range(of: "CONNECT ")
            else { return nil }
            return line[connect.upperBound...].split(separator: " ").first.map(String.init)
        }
    }

    func stop() {
        server.stop()
        try? FileManager.default.removeItem(at: folder)
    }
}
