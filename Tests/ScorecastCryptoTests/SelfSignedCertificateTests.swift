import ScorecastCrypto
import Foundation
import Testing
import TestSupport

@Suite struct SelfSignedCertificateTests {
    @Test func opensslVerifiesItAsItsOwnCAAndSeesTheSANs() async throws {
        let (certificate, privateKey) = try SelfSignedCertificate.generate(
            commonName: "scorecast test", subjectAlternativeNames: ["localhost", "127.0.0.1", "::1", "apns.local.test"],
            validityDays: 30)
        #expect(certificate.hasPrefix("-----BEGIN CERTIFICATE-----\n"))
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let certPath = try folder.write("cert.pem", certificate)

        let verified = try await ExternalTool.require("openssl", ["verify", "-CAfile", certPath, certPath])
        #expect(verified.contains("\(certPath): OK"))

        let text = try await ExternalTool.require("openssl", ["x509", "-in", certPath, "-noout", "-text"])
        #expect(text.contains("Version: 3 (0x2)"))
        #expect(text.contains("Subject: CN = scorecast test"))
        #expect(text.contains("Issuer: CN = scorecast test"))
        #expect(text.contains("CA:TRUE"))
        #expect(text.contains("DNS:localhost"))
        #expect(text.contains("DNS:apns.local.test"))
        #expect(text.contains("IP Address:127.0.0.1"))
        #expect(text.contains("IP Address:0:0:0:0:0:0:0:1"))
        #expect(text.contains("ecdsa-with-SHA256"))
        #expect(text.contains("prime256v1"))
        #expect(text.contains("X509v3 Subject Key Identifier"))

        let hostCheck = try await ExternalTool.require(
            "openssl", ["x509", "-in", certPath, "-noout", "-checkhost", "localhost", "-checkip", "127.0.0.1"])
        #expect(hostCheck.contains("Hostname localhost does match certificate"))
        #expect(hostCheck.contains("IP 127.0.0.1 does match certificate"))
        let otherHost = try await ExternalTool.require("openssl", ["x509", "-in", certPath, "-noout", "-checkhost", "example.com"])
        #expect(otherHost.contains("does NOT match"))

        // The key returned is the certificate's key.
        let certificateKey = try await ExternalTool.require("openssl", ["x509", "-in", certPath, "-noout", "-pubkey"])
        #expect(try P256PrivateKey(pem: privateKey).publicKey == P256PublicKey(pem: certificateKey))
    }

    @Test func validityCoversTheRequestedDaysAndNoMore() async throws {
        let days = 10
        let (certificate, _) = try SelfSignedCertificate.generate(
            commonName: "validity", subjectAlternativeNames: ["localhost"], validityDays: days)
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let certPath = try folder.write("cert.pem", certificate)
        let stillValid = try await ExternalTool.run("openssl", ["x509", "-in", certPath, "-noout", "-checkend", "\(days * 86_400 - 3_600)"])
        #expect(stillValid.succeeded, "valid for almost \(days) days")
        let expired = try await ExternalTool.run("openssl", ["x509", "-in", certPath, "-noout", "-checkend", "\(days * 86_400 + 3_600)"])
        #expect(!expired.succeeded, "not valid past \(days) days")
    }

    @Test func serialsAreRandom() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        var serials: Set<String> = []
        for index in 0..<3 {
            let (certificate, _) = try SelfSignedCertificate.generate(
                commonName: "serial", subjectAlternativeNames: ["localhost"], validityDays: 1)
            let path = try folder.write("cert\(index).pem", certificate)
            serials.insert(try await ExternalTool.require("openssl", ["x509", "-in", path, "-noout", "-serial"]))
        }
        #expect(serials.count == 3)
    }

    @Test func rejectsBadArguments() {
        let badNames = ["", "evil,DNS:attacker.test", "host name", "-leading.test", "a..b", "host:443",
                        String(repeating: "a", count: 64) + ".test", "*", "ünï.test", "IP:127.0.0.1"]
        for name in badNames {
            #expect(throws: CryptoError.self, "SAN '\(name)'") {
                try SelfSignedCertificate.generate(commonName: "x", subjectAlternativeNames: [name], validityDays: 1)
            }
        }
        #expect(throws: CryptoError.self) {
            try SelfSignedCertificate.generate(commonName: "x", subjectAlternativeNames: [], validityDays: 1)
        }
        for days in [0, -1, 36_501] {
            #expect(throws: CryptoError.self, "\(days) days") {
                try SelfSignedCertificate.generate(commonName: "x", subjectAlternativeNames: ["localhost"], validityDays: days)
            }
        }
        for commonName in ["", String(repeating: "c", count: 65)] {
            #expect(throws: CryptoError.self) {
                try SelfSignedCertificate.generate(commonName: commonName, subjectAlternativeNames: ["localhost"], validityDays: 1)
            }
        }
        // Wildcards and IPv6 are fine.
        #expect(throws: Never.self) {
            try SelfSignedCertificate.generate(commonName: "x", subjectAlternativeNames: ["*.local.test", "fe80::1"], validityDays: 1)
        }
    }
}
