import ScorecastCrypto
import Foundation
import Testing

@Suite struct JWSTests {
    private let header = Array(#"{"alg":"ES256","kid":"ABC123DEFG"}"#.utf8)
    private let payload = Array(#"{"iss":"DEF123GHIJ","iat":1764453600}"#.utf8)

    @Test func signParseVerifyRoundTrip() throws {
        let key = try P256PrivateKey.generate()
        let token = try JWS.signES256(header: header, payload: payload, key: key)
        let segments = token.split(separator: ".", omittingEmptySubsequences: false)
        #expect(segments.count == 3)
        #expect(!token.contains("="))

        let parts = try JWS.parse(token)
        #expect(parts.header == header)
        #expect(parts.payload == payload)
        #expect(parts.signingInput == Array((segments[0] + "." + segments[1]).utf8))
        #expect(parts.signature.count == 64)
        #expect(JWS.verifyES256(parts, key: key.publicKey))
        #expect(!JWS.verifyES256(parts, key: try P256PrivateKey.generate().publicKey))
    }

    /// RFC 7515 Appendix A.3: an ES256 JWS made by another implementation, and its key.
    @Test func verifiesTheRFC7515ExampleA3() throws {
        let x = try #require(Base64URL.decode("f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU"))
        let y = try #require(Base64URL.decode("x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0"))
        // SubjectPublicKeyInfo for id-ecPublicKey/prime256v1 followed by the uncompressed point.
        let prefix = try #require(Hex.decode("3059301306072a8648ce3d020106082a8648ce3d030107034200"))
        let der = prefix + [0x04] + x + y
        let pem = "-----BEGIN PUBLIC KEY-----\n" + Data(der).base64EncodedString(options: .lineLength64Characters)
            + "\n-----END PUBLIC KEY-----\n"
        let key = try P256PublicKey(pem: pem)
        #expect(key.derRepresentation == der)

        let token = "eyJhbGciOiJFUzI1NiJ9"
            + ".eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzODAsDQogImh0dHA6Ly9leGFtcGxlLmNvbS9pc19yb290Ijp0cnVlfQ"
            + ".DtEhU3ljbEg8L38VWAfUAqOyKAM6-Xx-F4GawxaepmXFCgfTjDxw5djxLa8ISlSApmWQxfKTUJqPP3-Kg6NU1Q"
        let parts = try JWS.parse(token)
        #expect(String(decoding: parts.header, as: UTF8.self) == #"{"alg":"ES256"}"#)
        #expect(JWS.verifyES256(parts, key: key))

        var tampered = parts.signingInput
        tampered[tampered.count - 1] ^= 0x01
        #expect(!JWS.verifyES256(JWS.Parts(header: parts.header, payload: parts.payload,
                                           signingInput: tampered, signature: parts.signature), key: key))
    }

    @Test func tamperedTokensFail() throws {
        let key = try P256PrivateKey.generate()
        let token = try JWS.signES256(header: header, payload: payload, key: key)
        let segments = token.split(separator: ".").map(String.init)

        let otherPayload = Base64URL.encode(Array(#"{"iss":"DEF123GHIJ","iat":1764453601}"#.utf8))
        let swappedPayload = try JWS.parse(segments[0] + "." + otherPayload + "." + segments[2])
        #expect(!JWS.verifyES256(swappedPayload, key: key.publicKey))

        var signature = try #require(Base64URL.decode(segments[2]))
        signature[10] ^= 0x40
        let badSignature = try JWS.parse(segments[0] + "." + segments[1] + "." + Base64URL.encode(signature))
        #expect(!JWS.verifyES256(badSignature, key: key.publicKey))

        let truncated = try JWS.parse(segments[0] + "." + segments[1] + "." + Base64URL.encode(Array(signature.prefix(48))))
        #expect(!JWS.verifyES256(truncated, key: key.publicKey))
    }

    @Test func headerMustAnnounceES256() throws {
        let key = try P256PrivateKey.generate()
        for badHeader in [#"{"alg":"HS256"}"#, #"{"alg":"none"}"#, #"{"kid":"x"}"#, "[]", "not json", #"{"alg":256}"#] {
            // Correctly ES256-signed, but the header says otherwise.
            let token = try JWS.signES256(header: Array(badHeader.utf8), payload: payload, key: key)
            #expect(!JWS.verifyES256(try JWS.parse(token), key: key.publicKey), "header \(badHeader)")
        }
    }

    @Test func malformedTokensAreRejectedWithoutEchoingThem() throws {
        let key = try P256PrivateKey.generate()
        let token = try JWS.signES256(header: header, payload: payload, key: key)
        let segments = token.split(separator: ".").map(String.init)
        let malformed = [
            "", "abc", segments[0] + "." + segments[1],
            token + "." + segments[2],
            segments[0] + "=." + segments[1] + "." + segments[2],
            segments[0] + "." + segments[1] + "." + segments[2] + "==",
            segments[0] + "." + segments[1] + "+." + segments[2],
            "." + segments[1] + "." + segments[2],
            token + " ",
        ]
        for candidate in malformed {
            let error = try #require(throws: CryptoError.self) { try JWS.parse(candidate) }
            #expect(error.code == .malformedToken)
            #expect(!error.description.contains(segments[1]))
            #expect(!error.description.contains(segments[2]))
        }
        // An empty payload is allowed by RFC 7515 (and signs fine).
        let empty = try JWS.signES256(header: header, payload: [], key: key)
        #expect(JWS.verifyES256(try JWS.parse(empty), key: key.publicKey))
    }
}
