import ScorecastCrypto
import Foundation
import Testing
import TestSupport

/// Cross-checks against an independent implementation: PyJWT on the `cryptography` package.
/// CI installs them from Deploy/requirements-test.txt; a missing one fails these tests.
@Suite struct PyJWTInteropTests {
    /// Fails the test with instructions unless python3 can import jwt and cryptography.
    private func requirePyJWT() async throws -> Bool {
        let result = try await ExternalTool.run("python3", ["-c", "import jwt, cryptography; print(jwt.__version__)"])
        guard result.succeeded else {
            Issue.record("""
                python3 with PyJWT and cryptography is required for the interop tests; install them with \
                `pip install -r Deploy/requirements-test.txt`. Python said: \(result.stderr)
                """)
            return false
        }
        return true
    }

    private static let verifyScript = """
        import sys, json, jwt
        token, public_pem = sys.argv[1], open(sys.argv[2]).read()
        claims = jwt.decode(token, public_pem, algorithms=["ES256"], options={"verify_iat": False})
        header = jwt.get_unverified_header(token)
        print(json.dumps({"header": header, "claims": claims}, sort_keys=True))
        """

    private static let signScript = """
        import sys, json, jwt
        private_pem = open(sys.argv[1]).read()
        claims = json.loads(sys.argv[2])
        print(jwt.encode(claims, private_pem, algorithm="ES256", headers={"kid": sys.argv[3]}), end="")
        """

    @Test func pyJWTVerifiesOurProviderToken() async throws {
        guard try await requirePyJWT() else { return }
        let key = try P256PrivateKey.generate()
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let publicPath = try folder.write("public.pem", key.publicKey.pem)
        let issuedAt = Int(Date().timeIntervalSince1970)
        let header = Array(#"{"alg":"ES256","kid":"ABC123DEFG"}"#.utf8)
        let payload = Array(#"{"iss":"DEF123GHIJ","iat":\#(issuedAt)}"#.utf8)

        // Several tokens, so a signature with short R or S would show up as a failure too.
        for _ in 0..<5 {
            let token = try JWS.signES256(header: header, payload: payload, key: key)
            let output = try await ExternalTool.require("python3", ["-c", Self.verifyScript, token, publicPath])
            let decoded = try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: [String: Any]]
            #expect(decoded?["header"]?["kid"] as? String == "ABC123DEFG")
            #expect(decoded?["header"]?["alg"] as? String == "ES256")
            #expect(decoded?["claims"]?["iss"] as? String == "DEF123GHIJ")
            #expect(decoded?["claims"]?["iat"] as? Int == issuedAt)
        }
    }

    @Test func pyJWTRejectsOurTokenUnderAnotherKeyOrTampered() async throws {
        guard try await requirePyJWT() else { return }
        let key = try P256PrivateKey.generate()
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let otherPublic = try folder.write("other.pem", try P256PrivateKey.generate().publicKey.pem)
        let ownPublic = try folder.write("own.pem", key.publicKey.pem)
        let token = try JWS.signES256(header: Array(#"{"alg":"ES256"}"#.utf8),
                                      payload: Array(#"{"iss":"X"}"#.utf8), key: key)
        let wrongKey = try await ExternalTool.run("python3", ["-c", Self.verifyScript, token, otherPublic])
        #expect(!wrongKey.succeeded)
        #expect(wrongKey.stderr.contains("InvalidSignatureError"))

        let segments = token.split(separator: ".").map(String.init)
        let tampered = segments[0] + "." + Base64URL.encode(Array(#"{"iss":"Y"}"#.utf8)) + "." + segments[2]
        let result = try await ExternalTool.run("python3", ["-c", Self.verifyScript, tampered, ownPublic])
        #expect(!result.succeeded)
    }

    @Test func weVerifyPyJWTTokensSignedWithAnOpenSSLKey() async throws {
        guard try await requirePyJWT() else { return }
        let pem = try await OpenSSLKeys.pkcs8P256()
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let keyPath = try folder.write("AuthKey_KEY1234567.p8", pem)
        let key = try P256PrivateKey(contentsOfFile: keyPath)

        for index in 0..<5 {
            let claims = #"{"iss":"TEAM\#(index)","iat":1764453600}"#
            let token = try await ExternalTool.require("python3", ["-c", Self.signScript, keyPath, claims, "KEY1234567"])
            let parts = try JWS.parse(token)
            #expect(parts.signature.count == 64)
            #expect(JWS.verifyES256(parts, key: key.publicKey))
            let payload = try JSONSerialization.jsonObject(with: Data(parts.payload)) as? [String: Any]
            #expect(payload?["iss"] as? String == "TEAM\(index)")

            var forged = parts.signature
            forged[0] ^= 0x01
            #expect(!JWS.verifyES256(JWS.Parts(header: parts.header, payload: parts.payload,
                                               signingInput: parts.signingInput, signature: forged),
                                     key: key.publicKey))
        }
    }
}
