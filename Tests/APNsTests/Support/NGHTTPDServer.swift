import Crypto
import Foundation
import TestSupport
@testable import APNs

/// nghttpd (nghttp2's C server) serving an empty file at the broadcast path over HTTP/2 TLS:
/// fast enough that a throughput figure measures the client, not the server.
final class NGHTTPDServer: @unchecked Sendable {
    // @unchecked: set once in init; stop() is called once by the test.
    let port: Int
    let caFile: String
    private let folder: URL
    private let server: ServerProcess

    init(bundleID: String) async throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("apns-nghttpd-\(UUID().uuidString)")
        let docs = folder.appendingPathComponent("htdocs/4/broadcasts/apps")
        try FileManager.default.createDirectory(at: docs, withIntermediateDirectories: true)
        // An empty body, as APNs' 200s have: nghttpd sends HEADERS and an empty DATA frame with
        // END_STREAM. A client that answered such streams with RST_STREAM (Debian's libcurl 7.88 does)
        // trips nghttpd's rapid-reset guard (GOAWAY after about a thousand streams).
        try Data().write(to: docs.appendingPathComponent(bundleID))
        let (certificate, key) = try SelfSignedCertificate.generate(
            commonName: "localhost", subjectAlternativeNames: ["localhost", "127.0.0.1"], validityDays: 1)
        let certFile = folder.appendingPathComponent("cert.pem")
        let keyFile = folder.appendingPathComponent("key.pem")
        try certificate.write(to: certFile, atomically: true, encoding: .utf8)
        try key.write(to: keyFile, atomically: true, encoding: .utf8)
        caFile = certFile.path
        port = try FreePort.find()
        let server = try ServerProcess(
            "nghttpd", "nghttpd",
            ["--htdocs", folder.appendingPathComponent("htdocs").path, "--max-concurrent-streams", "1000", String(port), keyFile.path, certFile.path])
        self.server = server
        // Ready when it accepts connections (however long a loaded machine takes; a 2 s bound
        // was a margin); one that exits or never listens fails, naming it.
        let port = self.port
        do {
            try await waitUntil("nghttpd listens on \(port)", every: .milliseconds(20)) {
                guard server.isRunning else { throw TestServerError("nghttpd exited: \(server.errorOutput)") }
                return FreePort.isListening(port)
            }
        } catch {
            server.stop()
            throw TestServerError("nghttpd did not start (apt-get install nghttp2-server): \(error)")
        }
    }

    var endpoint: APNsEndpoint { APNsEndpoint(host: "localhost", port: port, caFile: caFile) }

    func stop() {
        server.stop()
        try? FileManager.default.removeItem(at: folder)
    }
}

/// Loopback TCP ports for servers that want one on their command line.
enum FreePort {
    /// A port the kernel just handed out (bound to port 0, then released).
    static func find() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw TestServerError("socket() failed") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard bound else { throw TestServerError("bind() failed") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    static func isListening(_ port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        return withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
    }
}
