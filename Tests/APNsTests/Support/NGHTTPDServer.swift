import ScorecastCrypto
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
        do {
            try await server.waitUntilListening(on: port)
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
