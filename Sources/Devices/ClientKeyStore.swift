import Foundation
import Postgres
import Registry
import ServiceBase

/// The iOS apps' client keys (`app_client_keys`), made by `scorecast apps client-key`.
///
/// They are the feed keys' tokens (`APIKeyToken`: a public prefix, a secret kept only as a
/// SHA-256 hash, compared in constant time), bound to a bundle id instead of a feed. A client
/// key ships inside the app, so it identifies the app rather than proving much; what it buys is
/// revocation and per-app accounting, and the rate limits do the rest.
package struct ClientKeyStore: Sendable {
    /// One stored key.
    package struct Record: Sendable, Hashable {
        package var id: Int64
        package var bundleID: String
        package var name: String
        package var prefix: String
        package var secretHash: [UInt8]
        package var createdAt: Date
        package var revokedAt: Date?

        static let columns = "id, bundle_id, name, prefix, secret_hash, created_at, revoked_at"

        init(row: PostgresRow) throws {
            id = try row.decode("id")
            bundleID = try row.decode("bundle_id")
            name = try row.decode("name")
            prefix = try row.decode("prefix")
            secretHash = [UInt8](try row.decode("secret_hash", as: Data.self))
            createdAt = try row.decode("created_at")
            revokedAt = try row.decode("revoked_at", as: Date?.self)
        }
    }

    let pool: PostgresPool

    /// Creates a store on `pool`.
    package init(pool: PostgresPool) { self.pool = pool }

    /// Creates a key named `name` for `bundleID`; the token exists in clear only in the answer.
    package func create(bundleID: String, name: String) async throws -> (record: Record, token: APIKeyToken) {
        guard APIKeyRecord.isValidName(name) else { throw RegistryError(.invalidInput, "--name: \(APIKeyStore.CreateError.invalidName)") }
        for _ in 0..<3 {
            let token = APIKeyToken.generate()
            do {
                let rows = try await pool.query("""
                    INSERT INTO app_client_keys (bundle_id, name, prefix, secret_hash)
                    VALUES (\(bundleID), \(name), \(token.prefix), \(Data(token.hash)))
                    RETURNING \(unsafeSQL: Record.columns)
                    """)
                guard let row = rows.first else { throw PostgresError(.queryFailed, "INSERT … RETURNING returned no row") }
                return (try Record(row: row), token)
            } catch let error as PostgresError where error.sqlState == PostgresError.SQLState.uniqueViolation {
                if error.constraint == "app_client_keys_bundle_id_name_key" {
                    throw RegistryError(.alreadyExists, "\(bundleID) already has a client key named \(name)")
                }
                continue
            }
        }
        throw PostgresError(.queryFailed, "could not find an unused key prefix")
    }

    /// The key with this prefix, revoked or not.
    package func find(prefix: String) async throws -> Record? {
        try await pool.query("SELECT \(unsafeSQL: Record.columns) FROM app_client_keys WHERE prefix = \(prefix)")
            .first.map(Record.init(row:))
    }

    /// Every key of `bundleID`, by name.
    package func all(bundleID: String) async throws -> [Record] {
        try await pool.query("SELECT \(unsafeSQL: Record.columns) FROM app_client_keys WHERE bundle_id = \(bundleID) ORDER BY name")
            .map(Record.init(row:))
    }

    /// Revokes `bundleID`'s key `name`; `nil` when there is none. `revoked_at` keeps the
    /// database's clock: it records when, and no rule reads the time (only whether it is set).
    package func revoke(bundleID: String, name: String) async throws -> Record? {
        try await pool.query("""
            UPDATE app_client_keys SET revoked_at = COALESCE(revoked_at, now())
            WHERE bundle_id = \(bundleID) AND name = \(name)
            RETURNING \(unsafeSQL: Record.columns)
            """).first.map(Record.init(row:))
    }
}
