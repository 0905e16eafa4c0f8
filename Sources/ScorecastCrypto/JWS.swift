import Foundation
import JSON

/// Compact JSON Web Signatures (RFC 7515) with ES256 (RFC 7518 §3.4): `header.payload.signature`,
/// each segment base64url without padding, the signature the raw 64-byte R‖S.
///
/// The JSON of header and payload is the caller's: this type signs and checks bytes. (APNs
/// provider-token claims are built by the APNs module.)
public enum JWS {
    /// The decoded segments of a compact JWS.
    public struct Parts: Sendable, Equatable {
        /// The protected header: JSON bytes, decoded from the first segment.
        public let header: [UInt8]
        /// The payload: bytes (JSON claims for a JWT), decoded from the second segment.
        public let payload: [UInt8]
        /// The bytes that were signed: the first two segments as they appear in the token,
        /// joined by `.` (ASCII).
        public let signingInput: [UInt8]
        /// The signature, decoded from the third segment (64 bytes for a well-formed ES256 token).
        public let signature: [UInt8]

        /// Creates parts from decoded segments (normally produced by `JWS.parse`).
        public init(header: [UInt8], payload: [UInt8], signingInput: [UInt8], signature: [UInt8]) {
            self.header = header
            self.payload = payload
            self.signingInput = signingInput
            self.signature = signature
        }
    }

    /// Signs `payload` under `header` with ES256 and returns the compact serialization.
    ///
    /// `header` should be JSON with `"alg":"ES256"` (and, for APNs, `"kid"`); it is encoded as given.
    public static func signES256(header: [UInt8], payload: [UInt8], key: P256PrivateKey) throws -> String {
        let signingInput = Base64URL.encode(header) + "." + Base64URL.encode(payload)
        let signature = try key.signES256(Array(signingInput.utf8))
        return signingInput + "." + Base64URL.encode(signature)
    }

    /// Splits and decodes a compact JWS without checking its signature.
    ///
    /// - Throws: `CryptoError.malformedToken` unless the token has exactly three segments, each
    ///   valid unpadded base64url, with a non-empty header. The token itself is never put in
    ///   the error (it is a credential).
    public static func parse(_ token: String) throws -> Parts {
        let segments = token.utf8.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard segments.count == 3 else {
            throw CryptoError(code: .malformedToken, context: "a compact JWS has 3 '.'-separated segments, found \(segments.count)")
        }
        let names = ["header", "payload", "signature"]
        var decoded: [[UInt8]] = []
        for (index, segment) in segments.enumerated() {
            guard let bytes = Base64.decode(Array(segment), table: Base64.urlDecodeTable) else {
                throw CryptoError(code: .malformedToken, context: "the JWS \(names[index]) segment is not unpadded base64url")
            }
            decoded.append(bytes)
        }
        guard !decoded[0].isEmpty else {
            throw CryptoError(code: .malformedToken, context: "the JWS header segment is empty")
        }
        let signingInput = Array(segments[0]) + [UInt8(ascii: ".")] + Array(segments[1])
        return Parts(header: decoded[0], payload: decoded[1], signingInput: signingInput, signature: decoded[2])
    }

    /// Whether `parts` carries a valid ES256 signature under `key`.
    ///
    /// Also requires the header to be a JSON object whose `alg` is `"ES256"`, so a token that
    /// announces another algorithm is never accepted as ES256 (RFC 7515 §5.2, RFC 8725 §3.1).
    public static func verifyES256(_ parts: Parts, key: P256PublicKey) -> Bool {
        guard parts.signature.count == ECDSASignature.rawSize,
              let header = try? JSONCoding.decode(AlgorithmHeader.self, from: parts.header),
              header.alg == "ES256" else {
            return false
        }
        return key.verifyES256(signature: parts.signature, message: parts.signingInput)
    }

    /// The one header member `verifyES256` checks.
    private struct AlgorithmHeader: Decodable {
        let alg: String
    }
}
