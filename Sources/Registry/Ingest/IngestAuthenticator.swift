import Clocks
import Foundation
import HTTPServer
import ScorecastCrypto
import ServiceBase

/// Who posted an ingest request: the key's row, once its token (and signature, when the key
/// requires one) checked out.
package struct AuthenticatedFeed: Sendable, Hashable {
    /// The key's id.
    package var keyID: Int64
    /// The key's name: the `feed` of the events.
    package var name: String
    /// When the key was last recorded as used (`api_keys.last_used_at`).
    package var lastUsedAt: Date?

    /// Whether `last_used_at` is worth updating at `now` (it is kept to the minute, so busy
    /// feeds do not write the row on every request).
    package func needsTouch(now: Date) -> Bool {
        guard let lastUsedAt else { return true }
        return now.timeIntervalSince(lastUsedAt) >= 60
    }
}

/// Checks `Authorization: Bearer sck_…` and, for keys that require it, the request signature.
///
/// Every refusal is a `401` problem with a `WWW-Authenticate` header; unknown, wrong and
/// malformed tokens get the same answer, so a caller learns nothing about which keys exist.
/// Neither the token nor the signature ever reaches a log line or a problem body.
package struct IngestAuthenticator: Sendable {
    /// Why a request was refused (the problem's detail).
    package enum Failure: Error, Sendable, Hashable, CustomStringConvertible {
        /// No `Authorization` header.
        case missingCredentials
        /// The header is not `Bearer <token>`.
        case malformedCredentials
        /// No key matches the token.
        case invalidKey
        /// The key was revoked.
        case revoked
        /// The key requires a signature and it is missing or wrong.
        case signature(RequestSignature.Failure)

        package var description: String {
            switch self {
            case .missingCredentials: "missing Authorization header: send Authorization: Bearer <API key>"
            case .malformedCredentials: "the Authorization header must be Bearer <API key> with a key made by `scorecast keys create`"
            case .invalidKey: "the API key is not valid"
            case .revoked: "the API key has been revoked"
            case .signature(let failure): failure.description
            }
        }

        /// The `401` problem answered.
        package var problem: Problem {
            Problem(
                status: .unauthorized, detail: description,
                headers: ["WWW-Authenticate": "Bearer realm=\"scorecast\""])
        }
    }

    /// Finds a key by the public prefix of its token.
    package typealias KeyLookup = @Sendable (_ prefix: String) async throws -> APIKeyRecord?

    private let lookup: KeyLookup
    private let signature: RequestSignature
    private let clock: any ServiceClock

    /// Creates an authenticator reading keys with `lookup`; signatures may be `tolerance`
    /// seconds off the clock.
    package init(lookup: @escaping KeyLookup, tolerance: Int, clock: any ServiceClock = SystemServiceClock()) {
        self.lookup = lookup
        self.signature = RequestSignature(tolerance: tolerance)
        self.clock = clock
    }

    /// Checks `request`'s credentials against its (complete) body.
    package func authenticate(_ request: HTTPRequest) async throws -> AuthenticatedFeed {
        let record = try await key(of: request)
        if let secret = record.signingSecret {
            do {
                try signature.verify(
                    timestamp: request.headers[RequestSignature.timestampHeader],
                    signature: request.headers[RequestSignature.signatureHeader],
                    body: request.body, secret: secret, now: clock.now())
            } catch {
                throw Failure.signature(error)
            }
        }
        return AuthenticatedFeed(keyID: record.id, name: record.name, lastUsedAt: record.lastUsedAt)
    }

    /// The live key `request`'s `Authorization` header names: everything but the signature,
    /// which covers the body. The server checks this on the headers, before reading the body.
    package func key(of request: HTTPRequest) async throws -> APIKeyRecord {
        guard let header = request.headers["Authorization"] else { throw Failure.missingCredentials }
        let parts = header.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { throw Failure.malformedCredentials }
        let presented = parts[1].trimmingCharacters(in: .whitespaces)
        guard let token = APIKeyToken(parsing: presented) else { throw Failure.invalidKey }
        guard let record = try await lookup(token.prefix) else {
            // Hash anyway, so an unknown prefix costs the same time as a wrong secret.
            _ = token.matches(storedHash: Self.decoyHash)
            throw Failure.invalidKey
        }
        guard token.matches(storedHash: record.secretHash) else { throw Failure.invalidKey }
        guard record.revokedAt == nil else { throw Failure.revoked }
        return record
    }

    private static let decoyHash = [UInt8](repeating: 0, count: SHA256.byteCount)
}
