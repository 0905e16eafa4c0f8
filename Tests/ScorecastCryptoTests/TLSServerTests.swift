import ScorecastCrypto
import Foundation
import Testing
import TestSupport

/// The certificate in use: curl trusts it as its CA file (`--cacert`, i.e. `CURLOPT_CAINFO`) and
/// verifies host names against it while talking to a real TLS server (`openssl s_server`).
@Suite struct TLSServerTests {
    @Test func curlTrustsTheCertificateForLocalhostAndLoopback() async throws {
        let (certificate, privateKey) = try SelfSignedCertificate.generate(
            commonName: "scorecast simulator", subjectAlternativeNames: ["localhost", "127.0.0.1"], validityDays: 1)
        let (strangerCertificate, _) = try SelfSignedCertificate.generate(
            commonName: "stranger", subjectAlternativeNames: ["localhost", "127.0.0.1"], validityDays: 1)
        let (otherHostCertificate, otherHostKey) = try SelfSignedCertificate.generate(
            commonName: "other", subjectAlternativeNames: ["other.test"], validityDays: 1)
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let certPath = try folder.write("cert.pem", certificate)
        let keyPath = try folder.write("key.pem", privateKey)
        let strangerPath = try folder.write("stranger.pem", strangerCertificate)
        let otherCertPath = try folder.write("other.pem", otherHostCertificate)
        let otherKeyPath = try folder.write("other-key.pem", otherHostKey)

        try await TLSTestServer.with(certificate: certPath, key: keyPath) { port in
            for host in ["localhost", "127.0.0.1"] {
                let result = try await curl(["--cacert", certPath, "https://\(host):\(port)/"])
                #expect(result.succeeded, "curl to \(host): \(result.stderr)")
            }
            // Another self-signed CA does not vouch for this server.
            let untrusted = try await curl(["--cacert", strangerPath, "https://localhost:\(port)/"])
            #expect(untrusted.status == 60, "curl exit 60 (peer certificate cannot be authenticated): \(untrusted.stderr)")
        }
        try await TLSTestServer.with(certificate: otherCertPath, key: otherKeyPath) { port in
            // Trusted, but issued for another name: host name verification must fail.
            let mismatch = try await curl(["--cacert", otherCertPath, "https://localhost:\(port)/"])
            #expect(!mismatch.succeeded, "curl must reject a certificate for another host")
            #expect(mismatch.status == 60 || mismatch.status == 51, "exit \(mismatch.status): \(mismatch.stderr)")
        }
    }

    /// curl's own limit only bounds a hang: a handshake on a loaded machine may take seconds.
    private func curl(_ arguments: [String]) async throws -> ExternalTool.Result {
        try await ExternalTool.run("curl", ["--silent", "--show-error", "--max-time", "60", "--output", "/dev/null"] + arguments)
    }
}

/// `openssl s_server -www` on a free loopback port, for the length of a closure.
enum TLSTestServer {
    static func with(certificate: String, key: String, _ body: (Int) async throws -> Void) async throws {
        let port = try FreePort.find()
        let server = try ServerProcess(
            "openssl s_server", "openssl", ["s_server", "-quiet", "-www", "-accept", "127.0.0.1:\(port)", "-cert", certificate, "-key", key])
        defer { server.stop() }
        try await server.waitUntilListening(on: port)
        try await body(port)
    }
}
