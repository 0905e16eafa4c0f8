import ScorecastCrypto
import Foundation
import ServiceBase

/// The optional HMAC-SHA256 signature of an ingest request.
///
/// A feed whose key requires signatures sends two headers:
/// ```
/// X-Scorecast-Timestamp: 1764453600                    (UNIX seconds, when it signed)
/// X-Scorecast-Signature: v1=<hex(HMAC-SHA256(secret, "1764453600." + body))>
/// ```
/// The timestamp binds the signature to a moment, so a captured request cannot be replayed
/// outside the tolerance window. Several `v1=` values separated by commas are accepted (any one
/// matching suffices), for rotating secrets. Every comparison is constant-time.
package struct RequestSignature: Sendable {
    /// The timestamp header.
    package static let timestampHeader = "X-Scorecast-Timestamp"
    /// The signature header.
    package static let signatureHeader = "X-Scorecast-Signature"
    /// The only signature scheme.
    package static let version = "v1"

    /// Why a request's signature was refused. Descriptions never contain a signature or secret.
    package enum Failure: Error, Sendable, Hashable, CustomStringConvertible {
        /// One or both headers are absent.
        case missing
        /// The timestamp is not a whole number of seconds.
        case malformedTimestamp
        /// The signature header has no well-formed `v1=<64 hex>` value.
        case malformedSignature
        /// The timestamp is further than `tolerance` seconds from the server's clock.
        case expired(tolerance: Int)
        /// No signature matches the body.
        case mismatch

        package var description: String {
            switch self {
            case .missing:
                "this API key requires signed requests: send \(RequestSignature.timestampHeader) and \(RequestSignature.signatureHeader)"
            case .malformedTimestamp:
                "\(RequestSignature.timestampHeader) must be UNIX seconds"
            case .malformedSignature:
                "\(RequestSignature.signatureHeader) must be v1=<64 hex digits of HMAC-SHA256(secret, timestamp + \".\" + body)>"
            case .expired(let tolerance):
                "\(RequestSignature.timestampHeader) is more than \(tolerance) seconds away from the server's clock"
            case .mismatch:
                "\(RequestSignature.signatureHeader) does not match the request body"
            }
        }
    }

    /// How far the timestamp may be from now, either way, in seconds.
    package var tolerance: Int

    /// Creates a verifier.
    package init(tolerance: Int) {
        self.tolerance = tolerance
    }

    /// The bytes that are signed: `"<timestamp>." + body`.
    package static func message(timestamp: String, body: [UInt8]) -> [UInt8] {
        Array(timestamp.utf8) + [UInt8(ascii: ".")] + body
    }

    /// The signature header value for `body` signed at `timestamp` (UNIX seconds).
    package static func sign(body: [UInt8], timestamp: Int, secret: SigningSecret) -> String {
        let tag = HMACSHA256.authenticate(message: message(timestamp: String(timestamp), body: body), key: secret.keyBytes)
        return "\(version)=\(Hex.encode(tag))"
    }

    /// Checks the two header values (either may be absent) against `body` and `secret` at `now`.
    package func verify(
        timestamp: String?, signature: String?, body: [UInt8], secret: SigningSecret, now: Date
    ) throws(Failure) {
        guard let timestamp, let signature else { throw .missing }
        let trimmed = timestamp.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty, trimmed.utf8.count <= 12,
              trimmed.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
              let seconds = Int(trimmed)
        else { throw .malformedTimestamp }
        let candidates = signature.split(separator: ",").compactMap { part -> [UInt8]? in
            let value = part.trimmingCharacters(in: .whitespaces)
            guard value.hasPrefix("\(Self.version)="), value.utf8.count == Self.version.utf8.count + 1 + 64 else { return nil }
            return Hex.decode(value.dropFirst(Self.version.utf8.count + 1))
        }
        guard !candidates.isEmpty else { throw .malformedSignature }
        guard abs(Double(seconds) - now.timeIntervalSince1970) <= Double(tolerance) else {
            throw .expired(tolerance: tolerance)
        }
        let expected = HMACSHA256.authenticate(message: Self.message(timestamp: trimmed, body: body), key: secret.keyBytes)
        // Check every candidate, so the time taken does not depend on which one matched.
        var matched = false
        for candidate in candidates where ConstantTime.equals(candidate, expected) { matched = true }
        guard matched else { throw .mismatch }
    }
}
