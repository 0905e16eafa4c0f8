import Foundation
import Postgres
import ScorecastCrypto
import ServiceBase

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
    package static let columns = "id, name, prefix, secret_hash, hmac_secret, hmac_secret_sealed, created_at, last_used_at, revoked_at"

    /// Decodes a row selected with `columns`; a sealed signing secret is opened with `keyring`.
    package init(row: PostgresRow, keyring: SealingKeyring?) throws {
        id = try row.decode("id")
        name = try row.decode("name")
        prefix = try row.decode("prefix")
        secretHash = [UInt8](try row.decode("secret_hash", as: Data.self))
        if let sealed = try row.decode("hmac_secret_sealed", as: Data?.self) {
            signingSecret = try Self.open([UInt8](sealed), name: name, prefix: prefix, keyring: keyring)
        } else {
            signingSecret = try row.decode("hmac_secret", as: String?.self).map(SigningSecret.init(text:))
        }
        createdAt = try row.decode("created_at")
        lastUsedAt = try row.decode("last_used_at", as: Date?.self)
        revokedAt = try row.decode("revoked_at", as: Date?.self)
    }

    /// What a sealed signing secret is bound to: its key's prefix, so that a sealed value copied
    /// to another row does not open there.
    static func sealingContext(prefix: String) -> [UInt8] { Array("api_keys.hmac_secret:\(prefix)".utf8) }

    /// Seals `secret` for the key with `prefix`.
    static func seal(_ secret: SigningSecret, prefix: String, keyring: SealingKeyring) throws -> Data {
        Data(try keyring.seal(secret.keyBytes, context: sealingContext(prefix: prefix)))
    }

    /// Opens the sealed signing secret of key `name`.
    static func open(_ sealed: [UInt8], name: String, prefix: String, keyring: SealingKeyring?) throws(SigningSecretError) -> SigningSecret {
        guard let keyring else { throw .noKey(name: name) }
        do {
            return SigningSecret(text: String(decoding: try keyring.open(sealed, context: sealingContext(prefix: prefix)), as: UTF8.self))
        } catch {
            throw .doesNotOpen(name: name, reason: error.context)
        }
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

/// A feed key's sealed signing secret cannot be read; the message says which setting fixes it.
package enum SigningSecretError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The secret is sealed but no key is configured.
    case noKey(name: String)
    /// None of the configured keys opens it (a wrong key, or the value was altered).
    case doesNotOpen(name: String, reason: String)

    package var description: String {
        switch self {
        case .noKey(let name):
            "the signing secret of feed key \(name) is encrypted, but no key is set: set SCORECAST_SECRETS_KEY_FILE (or SCORECAST_SECRETS_KEY) to the key it was sealed with"
        case .doesNotOpen(let name, let reason):
            "the signing secret of feed key \(name) does not open: \(reason); SCORECAST_SECRETS_KEY_FILE (or SCORECAST_SECRETS_KEY) must list the key it was sealed with"
        }
    }
}
