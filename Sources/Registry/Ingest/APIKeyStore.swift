import Foundation
import Postgres
import ScorecastCrypto
import ServiceBase

/// Creates, lists, revokes and finds feed API keys in `api_keys`.
package struct APIKeyStore: Sendable {
    /// A key just created: the only moment its token (and signing secret) exist in clear.
    package struct Created: Sendable {
        /// The stored row.
        package var record: APIKeyRecord
        /// The token to hand to the feed.
        package var token: APIKeyToken
        /// The signing secret, when the key requires signatures.
        package var signingSecret: SigningSecret?
    }

    /// Why a key could not be created.
    package enum CreateError: Error, Sendable, Hashable, CustomStringConvertible {
        /// The name breaks `^[A-Za-z0-9._-]{1,64}$`.
        case invalidName
        /// A key with this name exists (revoked or not: names stay unique so feeds stay distinct).
        case nameTaken(String)

        package var description: String {
            switch self {
            case .invalidName: "a key name is 1 to 64 of A-Z a-z 0-9 . _ -"
            case .nameTaken(let name): "a key named \(name) already exists (names are never reused: they are the feed of past events)"
            }
        }
    }

    let pool: PostgresPool
    /// Seals new signing secrets and opens stored ones; `nil`: they are kept in clear.
    let keyring: SealingKeyring?

    /// Creates a store on `pool`; with `keyring`, signing secrets are stored sealed with it.
    package init(pool: PostgresPool, keyring: SealingKeyring?) {
        self.pool = pool
        self.keyring = keyring
    }

    /// Creates a key named `name`; with `signed`, requests must also carry a signature.
    package func create(name: String, signed: Bool) async throws -> Created {
        guard APIKeyRecord.isValidName(name) else { throw CreateError.invalidName }
        let secret = signed ? SigningSecret.generate() : nil
        // A prefix collision (48 random bits) is astronomically rare; try again with a new token.
        for _ in 0..<3 {
            let token = APIKeyToken.generate()
            let clear = keyring == nil ? secret?.text : nil
            let sealed = try keyring.flatMap { keyring in try secret.map { try APIKeyRecord.seal($0, prefix: token.prefix, keyring: keyring) } }
            do {
                let rows = try await pool.query("""
                    INSERT INTO api_keys (name, prefix, secret_hash, hmac_secret, hmac_secret_sealed)
                    VALUES (\(name), \(token.prefix), \(Data(token.hash)), \(clear), \(sealed))
                    RETURNING \(unsafeSQL: APIKeyRecord.columns)
                    """)
                guard let row = rows.first else { throw PostgresError(.queryFailed, "INSERT … RETURNING returned no row") }
                return Created(record: try APIKeyRecord(row: row, keyring: keyring), token: token, signingSecret: secret)
            } catch let error as PostgresError where error.sqlState == PostgresError.SQLState.uniqueViolation {
                if error.constraint == "api_keys_name_key" { throw CreateError.nameTaken(name) }
                continue
            }
        }
        throw PostgresError(.queryFailed, "could not find an unused key prefix")
    }

    /// Every key, by name.
    package func all() async throws -> [APIKeyRecord] {
        try await pool.query("SELECT \(unsafeSQL: APIKeyRecord.columns) FROM api_keys ORDER BY name").map { try APIKeyRecord(row: $0, keyring: keyring) }
    }

    /// The key with this prefix, revoked or not.
    package func find(prefix: String) async throws -> APIKeyRecord? {
        try await pool.query("SELECT \(unsafeSQL: APIKeyRecord.columns) FROM api_keys WHERE prefix = \(prefix)")
            .first.map { try APIKeyRecord(row: $0, keyring: keyring) }
    }

    /// Revokes the key named `name`: its requests fail from now on. Returns the row, or `nil`
    /// when there is no such key; revoking twice keeps the first time.
    /// `revoked_at` keeps the database's clock: it records when, and no rule reads the time
    /// (only whether it is set).
    package func revoke(name: String) async throws -> APIKeyRecord? {
        try await pool.query("""
            UPDATE api_keys SET revoked_at = COALESCE(revoked_at, now()) WHERE name = \(name)
            RETURNING \(unsafeSQL: APIKeyRecord.columns)
            """).first.map { try APIKeyRecord(row: $0, keyring: keyring) }
    }

    /// Records that the key was used at `now`, at most once a minute per key (so busy feeds do
    /// not contend on the row).
    package func touch(id: Int64, now: Date) async throws {
        try await pool.execute("""
            UPDATE api_keys SET last_used_at = \(now)
            WHERE id = \(id) AND (last_used_at IS NULL OR last_used_at < \(now.addingTimeInterval(-60)))
            """)
    }
}
