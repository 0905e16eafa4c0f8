import ScorecastCrypto
import HTTPServer
import ServiceBase

/// Checks an app request's `Authorization: Bearer <client key>` against the bundle id of its
/// path. Unknown, wrong, revoked and other apps' keys all get the same `401`, so a caller learns
/// nothing about which keys exist; the token never reaches a log line or a problem.
package struct ClientAuthenticator: Sendable {
    /// Finds a key by its token's public prefix.
    package typealias KeyLookup = @Sendable (_ prefix: String) async throws -> ClientKeyStore.Record?

    private let lookup: KeyLookup

    /// Creates an authenticator reading keys with `lookup`.
    package init(lookup: @escaping KeyLookup) { self.lookup = lookup }

    /// Throws a `401` problem unless `request` carries a live client key of `bundleID`.
    package func authenticate(_ request: HTTPRequest, bundleID: String) async throws {
        guard let header = request.headers["Authorization"] else {
            throw Self.refusal("missing Authorization header: send Authorization: Bearer <client key> made by `scorecast apps client-key`")
        }
        let parts = header.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == "bearer",
              let token = APIKeyToken(parsing: parts[1].trimmingCharacters(in: .whitespaces))
        else { throw Self.refusal("the Authorization header must be Bearer <client key>") }
        guard let record = try await lookup(token.prefix) else {
            // Hash anyway, so an unknown prefix costs the same time as a wrong secret.
            _ = token.matches(storedHash: Self.decoyHash)
            throw Self.refusal("the client key is not valid for this app")
        }
        guard token.matches(storedHash: record.secretHash), record.bundleID == bundleID, record.revokedAt == nil else {
            throw Self.refusal("the client key is not valid for this app")
        }
    }

    private static func refusal(_ detail: String) -> Problem {
        Problem(status: .unauthorized, detail: detail, headers: ["WWW-Authenticate": "Bearer realm=\"scorecast-app\""])
    }

    private static let decoyHash = [UInt8](repeating: 0, count: SHA256.byteCount)
}
