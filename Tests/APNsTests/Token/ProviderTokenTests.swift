import ScorecastCrypto
import Foundation
import JSON
import ScorecastCore
import Testing
import TestSupport
@testable import APNs

@Suite("provider token")
struct ProviderTokenTests {
    static func credentials(team: String = "TEAM123456", key: String = "KEY1234567") throws -> APNsCredentials {
        try APNsCredentials(teamID: team, keyID: key, privateKey: P256PrivateKey.generate())
    }

    @Test("an ES256 JWT with alg+kid header and iss+iat claims, verifiable with the public key")
    func shape() throws {
        let credentials = try Self.credentials()
        let token = try ProviderToken(credentials: credentials, issuedAt: 1_764_453_600)
        let parts = try JWS.parse(token.jwt)
        #expect(try JSONParser().parse(parts.header) == ["alg": "ES256", "kid": "KEY1234567"])
        #expect(try JSONParser().parse(parts.payload) == ["iss": "TEAM123456", "iat": 1_764_453_600])
        #expect(parts.signature.count == 64)
        #expect(JWS.verifyES256(parts, key: credentials.privateKey.publicKey))
        #expect(token.authorization == "bearer " + token.jwt)
    }

    @Test("a tampered token does not verify")
    func tampered() throws {
        let credentials = try Self.credentials()
        let token = try ProviderToken(credentials: credentials, issuedAt: 1_764_453_600)
        let segments = token.jwt.split(separator: ".").map(String.init)
        let forgedClaims = Base64URL.encode(Array(#"{"iat":1764453600,"iss":"OTHERTEAM1"}"#.utf8))
        let forged = [segments[0], forgedClaims, segments[2]].joined(separator: ".")
        #expect(!JWS.verifyES256(try JWS.parse(forged), key: credentials.privateKey.publicKey))
        let otherKey = try P256PrivateKey.generate().publicKey
        #expect(!JWS.verifyES256(try JWS.parse(token.jwt), key: otherKey))
    }

    @Test("PyJWT, an independent implementation, verifies the token and reads its claims")
    func verifiesWithPyJWT() async throws {
        let credentials = try Self.credentials()
        let issuedAt = Int(Date().timeIntervalSince1970)
        let token = try ProviderToken(credentials: credentials, issuedAt: issuedAt)
        let script = """
        import json, sys, jwt
        token, key = sys.stdin.read().split("\\n", 1)
        header = jwt.get_unverified_header(token)
        claims = jwt.decode(token, key, algorithms=["ES256"])
        print(json.dumps({"alg": header["alg"], "kid": header["kid"], "iss": claims["iss"], "iat": claims["iat"]}))
        """
        let output = try await ExternalTool.require("python3", ["-c", script], input: Array((token.jwt + "\n" + credentials.privateKey.publicKey.pem).utf8))
        let decoded = try JSONParser().parse(output.trimmingCharacters(in: .whitespacesAndNewlines))
        #expect(decoded == ["alg": "ES256", "kid": "KEY1234567", "iss": "TEAM123456", "iat": .integer(issuedAt)])
        // A token with a flipped signature byte is refused by PyJWT as well.
        var signature = try JWS.parse(token.jwt).signature
        signature[10] ^= 0x01
        let prefix = token.jwt[..<token.jwt.lastIndex(of: ".")!]
        let refused = try await ExternalTool.require("python3", ["-c", """
        import sys, jwt
        token, key = sys.stdin.read().split("\\n", 1)
        try:
            jwt.decode(token, key, algorithms=["ES256"])
            print("accepted")
        except jwt.InvalidSignatureError:
            print("refused")
        """], input: Array((prefix + "." + Base64URL.encode(signature) + "\n" + credentials.privateKey.publicKey.pem).utf8))
        #expect(refused.trimmingCharacters(in: .whitespacesAndNewlines) == "refused")
    }

    @Test("descriptions never reveal the token or the key")
    func noSecretsInDescriptions() throws {
        let credentials = try Self.credentials()
        let token = try ProviderToken(credentials: credentials, issuedAt: 1_764_453_600)
        let signature = String(token.jwt.split(separator: ".")[2])
        for text in [String(describing: token), String(reflecting: token), String(describing: credentials)] {
            #expect(!text.contains(signature))
            #expect(!text.contains(token.jwt))
            #expect(!text.contains("PRIVATE KEY"))
        }
    }

    @Test("malformed team or key ids are refused, naming the id")
    func credentialIDs() throws {
        let key = try P256PrivateKey.generate()
        for (team, keyID, named) in [("TEAM12345", "KEY1234567", "team id"), ("team123456", "KEY1234567", "team id"),
                                     ("TEAM123456", "KEY-234567", "key id"), ("TEAM123456", "", "key id")] {
            let error = #expect(throws: APNsClientError.self) { _ = try APNsCredentials(teamID: team, keyID: keyID, privateKey: key) }
            #expect(error?.code == .invalidCredentials)
            #expect(error?.message.contains(named) == true)
        }
    }

    @Test("credentials load an Apple-style .p8 file; a missing file is a clear error")
    func keyFile() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("apns-p8-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let key = try P256PrivateKey.generate()
        let path = folder.appendingPathComponent("AuthKey_KEY1234567.p8").path
        try key.pkcs8PEM.write(toFile: path, atomically: true, encoding: .utf8)
        let credentials = try APNsCredentials(teamID: "TEAM123456", keyID: "KEY1234567", keyFile: path)
        #expect(credentials.privateKey.publicKey == key.publicKey)
        let missing = folder.appendingPathComponent("missing.p8").path
        let error = #expect(throws: APNsClientError.self) {
            _ = try APNsCredentials(teamID: "TEAM123456", keyID: "KEY1234567", keyFile: missing)
        }
        #expect(error?.code == .invalidCredentials)
        #expect(error?.message.contains("missing.p8") == true)
    }
}
