import Foundation
import Postgres

/// One row of `api_keys`: a feed's key. Its `name` is the `feed` of every event it posts, so
/// idempotency is per (key name, event id).
package struct APIKeyRecord: Sendable, Hashable {
    package var id: Int64
    /// The feed's name (`^[A-Za-z0-9._-]{1,64}$`).
    package var name: String
    /// The public part of the token (`sck_<prefix>_…`).
    package var prefix: String
    /// SHA-256 of the whole token.
    package var secretHash: [UInt8]
    /// When set, every request must be signed with it (see `RequestSignature`).
    package var signingSecret: SigningSecret?
    package var createdAt: Date
    package var lastUsedAt: Date?
    package var revokedAt: Date?

    /// The columns `init(row:)` reads.
    package static let columns = "id, name, prefix, secret_hash, hmac_secret, created_at, last_used_at, revoked_at"

    /// Decodes a row selected with `columns`.
    package init(row: PostgresRow) throws {
        id = try row.decode("id")
        name = try row.decode("name")
        prefix = try row.decode("prefix")
        secretHash = [UInt8](try row.decode("secret_hash", as: Data.self))
        signingSecret = try row.decode("hmac_secret", as: String?.self).map(SigningSecret.init(text:))
        createdAt = try row.decode("created_at")
        lastUsedAt = try row.decode("last_used_at", as: Date?.self)
        revokedAt = try row.decode("revoked_at", as: Date?.self)
    }

    /// Whether requests must be signed.
    package var requiresSignature: Bool { signingSecret != nil }

    /// Whether a key name is acceptable (the `api_keys.name` check).
    package static func isValidName(_ name: String) -> Bool {
        let scalars = name.unicodeScalars
        return (1...64).contains(scalars.count) && scalars.allSatisfy { scalar in
            scalar.isASCII && (CharacterSet.alphanumerics.contains(scalar) || scalar == "." || scalar == "_" || scalar == "-")
        }
    }
}
