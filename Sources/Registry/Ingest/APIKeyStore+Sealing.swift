import Foundation
import Postgres
import ScorecastCrypto
import ServiceBase

extension APIKeyStore {
    /// What `sealStoredSecrets` did, and what it found.
    package struct SealingReport: Sendable, Equatable {
        /// Secrets that were in clear and are now sealed with the current key.
        package var sealed = 0
        /// Secrets sealed with a previous key, now sealed with the current one.
        package var resealed = 0
        /// Secrets left in clear because no key is configured.
        package var inClear = 0

        /// A report of these counts.
        package init(sealed: Int = 0, resealed: Int = 0, inClear: Int = 0) {
            self.sealed = sealed
            self.resealed = resealed
            self.inClear = inClear
        }
    }

    /// Brings every stored signing secret to the current key: with a keyring, clear secrets are
    /// sealed and those sealed with a previous key sealed again (each row changed only if it
    /// is still as read); without one, clear secrets are counted. Throws ``SigningSecretError``
    /// when a sealed secret does not open (no key, or not a configured one), naming the key.
    package func sealStoredSecrets() async throws -> SealingReport {
        let rows = try await pool.query("""
            SELECT id, name, prefix, hmac_secret, hmac_secret_sealed FROM api_keys
            WHERE hmac_secret IS NOT NULL OR hmac_secret_sealed IS NOT NULL ORDER BY id
            """)
        var report = SealingReport()
        for row in rows {
            let id: Int64 = try row.decode("id")
            let name: String = try row.decode("name")
            let prefix: String = try row.decode("prefix")
            let clear = try row.decode("hmac_secret", as: String?.self)
            let sealed = try row.decode("hmac_secret_sealed", as: Data?.self).map { [UInt8]($0) }
            let secret: SigningSecret
            if let sealed {
                secret = try APIKeyRecord.open(sealed, name: name, prefix: prefix, keyring: keyring)
                if keyring?.isSealedWithCurrentKey(sealed) == true { continue }
            } else if let clear {
                secret = SigningSecret(text: clear)
            } else {
                continue
            }
            guard let keyring else {
                report.inClear += 1
                continue
            }
            let resealed = try APIKeyRecord.seal(secret, prefix: prefix, keyring: keyring)
            try await pool.execute("""
                UPDATE api_keys SET hmac_secret = NULL, hmac_secret_sealed = \(resealed)
                WHERE id = \(id) AND hmac_secret IS NOT DISTINCT FROM \(clear)
                  AND hmac_secret_sealed IS NOT DISTINCT FROM \(sealed.map { Data($0) })
                """)
            if sealed == nil { report.sealed += 1 } else { report.resealed += 1 }
        }
        return report
    }
}
