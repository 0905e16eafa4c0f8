import ScorecastCrypto
import Foundation
import TestSupport
@testable import APNs

/// Python's http.server over TLS without ALPN h2: an endpoint that is not APNs.
final class HTTP1TestServer: @unchecked Sendable {
    // @unchecked: set once in init; stop() is called once by the test.
    let port: Int
    let caFile: String
    private let folder: URL
    private let server: ServerProcess

    private static let script = """
    import http.server, json, ssl, sys, threading
    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            self.send_response(200); self.send_header("content-length", "2"); self.end_headers(); self.wfile.write(b"{}")
        def log_message(self, *args): pass
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(sys.argv[1], sys.argv[2])
    server.socket = context.wrap_socket(server.socket, server_side=True)
    print(json.dumps({"port": server.server_address[1]}), flush=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    sys.stdin.read()
    """

    init() async throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("apns-h1-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let (certificate, key) = try SelfSignedCertificate.generate(
            commonName: "localhost", subjectAlternativeNames: ["localhost", "127.0.0.1"], validityDays: 1)
        let certFile = folder.appendingPathComponent("cert.pem")
        let keyFile = folder.appendingPathComponent("key.pem")
        try certificate.write(to: certFile, atomically: true, encoding: .utf8)
        try key.write(to: keyFile, atomically: true, encoding: .utf8)
        caFile = certFile.path
        let server = try ServerProcess("http1-test-server", "python3", ["-c", Self.script, certFile.path, keyFile.path])
        let line = (try? await server.firstLine()) ?? ""
        guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
              let port = object["port"] as? Int else {
            let log = server.errorOutput
            server.stop()
            throw TestServerError("the HTTP/1.1 test server did not start: \(line) \(log)")
        }
        self.server = server
        self.port = port
    }

    var endpoint: APNsEndpoint { APNsEndpoint(host: "localhost", port: port, caFile: caFile) }

    func stop() {
        server.stop()
        try? FileManager.default.removeItem(at: folder)
    }
}
