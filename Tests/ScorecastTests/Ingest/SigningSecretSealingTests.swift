import Migrations
import Registry
import ScorecastCrypto
import Foundation
import Postgres
import Testing
import TestSupport

@Suite("Feed signing secrets sealed at rest with the operator's key")
struct SigningSecretSealingTests {
    static func keyring(_ keys: [String]) throws -> SealingKeyring { try SealingKeyring(hexKeys: keys) }
    static func newKey() -> String { Hex.encode(SecureRandom.bytes(32)) }

    /// Runs `body` with a migrated schema of its own.
    private static func withPool(_ body: (PostgresPool) async throws -> Void) async throws {
        try await TestDatabase.shared().withPool { pool in
            try await Migrator(files: IngestFixture.schemaFiles, logger: TestDatabase.logger).migrate(pool)
            try await body(pool)
        }
    }

    /// The row's stored forms of its signing secret.
    static func stored(_ pool: PostgresPool, _ name: String) async throws -> (clear: String?, sealed: [UInt8]?) {
        let row = try #require(try await pool.query("SELECT hmac_secret, hmac_secret_sealed FROM api_keys WHERE name = \(name)").first)
        return (try row.decode("hmac_secret", as: String?.self), try row.decode("hmac_secret_sealed", as: Data?.self).map { [UInt8]($0) })
    }

    @Test("with a key, a new signing secret is stored sealed (never in clear) and read back; without it or with another, a clear error")
    func sealedOnCreate() async throws {
        try await Self.withPool { pool in
            let keyring = try Self.keyring([Self.newKey()])
            let created = try await APIKeyStore(pool: pool, keyring: keyring).create(name: "opta", signed: true)
            let secret = try #require(created.signingSecret)
            let row = try await Self.stored(pool, "opta")
            #expect(row.clear == nil)
            let sealed = try #require(row.sealed)
            #expect(keyring.isSealedWithCurrentKey(sealed))
            #expect(String(decoding: sealed, as: UTF8.self).contains(secret.text) == false)
            #expect(try await APIKeyStore(pool: pool, keyring: keyring).find(prefix: created.record.prefix)?.signingSecret == secret)

            let missing = await #expect(throws: SigningSecretError.self) {
                try await APIKeyStore(pool: pool, keyring: nil).find(prefix: created.record.prefix)
            }
            #expect(missing?.description.contains("the signing secret of feed key opta is encrypted, but no key is set: set SCORECAST_SECRETS_KEY_FILE") == true)
            let wrong = await #expect(throws: SigningSecretError.self) {
                try await APIKeyStore(pool: pool, keyring: try Self.keyring([Self.newKey()])).find(prefix: created.record.prefix)
            }
            #expect(wrong?.description.contains("sealed with key \(keyring.currentKeyID), which is not among the configured keys") == true)
            #expect(wrong?.description.contains(secret.text) == false)
        }
    }

    @Test("stored clear secrets are sealed; rotation: the previous key opens, everything is sealed again with the new one")
    func sealAndRotate() async throws {
        try await Self.withPool { pool in
            let clearStore = APIKeyStore(pool: pool, keyring: nil)
            let signed = try #require(try await clearStore.create(name: "sportradar", signed: true).signingSecret)
            _ = try await clearStore.create(name: "unsigned", signed: false)
            #expect(try await Self.stored(pool, "sportradar").clear == signed.text)
            #expect(try await clearStore.sealStoredSecrets() == APIKeyStore.SealingReport(inClear: 1))

            let old = Self.newKey()
            let first = try Self.keyring([old])
            #expect(try await APIKeyStore(pool: pool, keyring: first).sealStoredSecrets() == APIKeyStore.SealingReport(sealed: 1))
            let sealedOld = try #require(try await Self.stored(pool, "sportradar").sealed)
            #expect(try await Self.stored(pool, "sportradar").clear == nil && first.isSealedWithCurrentKey(sealedOld))
            #expect(try await APIKeyStore(pool: pool, keyring: first).sealStoredSecrets() == APIKeyStore.SealingReport(), "nothing left to do")

            let new = Self.newKey()
            let rotating = try Self.keyring([new, old])
            #expect(try await APIKeyStore(pool: pool, keyring: rotating).sealStoredSecrets() == APIKeyStore.SealingReport(resealed: 1))
            let rotated = try Self.keyring([new])
            let record = try #require(try await APIKeyStore(pool: pool, keyring: rotated).all().first { $0.name == "sportradar" })
            #expect(record.signingSecret == signed)
            await #expect(throws: SigningSecretError.self) { try await APIKeyStore(pool: pool, keyring: first).all() }
        }
    }

    @Test("a sealed value copied onto another key's row does not open there")
    func boundToItsRow() async throws {
        try await Self.withPool { pool in
            let keyring = try Self.keyring([Self.newKey()])
            let store = APIKeyStore(pool: pool, keyring: keyring)
            _ = try await store.create(name: "a", signed: true)
            let b = try await store.create(name: "b", signed: true)
            try await pool.execute("""
                UPDATE api_keys SET hmac_secret_sealed = (SELECT hmac_secret_sealed FROM api_keys WHERE name = 'a') WHERE name = 'b'
                """)
            let error = await #expect(throws: SigningSecretError.self) { try await store.find(prefix: b.record.prefix) }
            #expect(error?.description.contains("feed key b does not open") == true)
        }
    }
}
