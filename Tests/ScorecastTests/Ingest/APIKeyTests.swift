import Migrations
import Registry
import ScorecastCrypto
import Clocks
import Foundation
import Postgres
import ServiceBase
import Synchronization
import Testing
import TestSupport

@Suite("API keys: tokens, signatures, the key store")
struct APIKeyTests {
    @Test("a generated token parses back, hashes to a match, and hides its secret")
    func tokenRoundTrip() throws {
        let token = APIKeyToken.generate()
        let parts = token.text.split(separator: "_")
        #expect(parts.count == 3 && parts[0] == "sck" && parts[1].count == 12 && parts[2].count == 64)
        let parsed = try #require(APIKeyToken(parsing: token.text))
        #expect(parsed == token)
        #expect(parsed.prefix == token.prefix)
        #expect(token.matches(storedHash: SHA256.hash(Array(token.text.utf8))))
        #expect(!token.matches(storedHash: APIKeyToken.generate().hash))
        #expect(!token.description.contains(String(parts[2])))
        #expect(APIKeyToken.generate() != token)
    }

    @Test("malformed tokens are refused", arguments: [
        "", "sck", "sck__", "sck_abc_def", "xyz_0123456789ab_" + String(repeating: "a", count: 64),
        "sck_0123456789AB_" + String(repeating: "a", count: 64), "sck_0123456789ab_" + String(repeating: "a", count: 63),
        "sck_0123456789ab_" + String(repeating: "g", count: 64), "sck_0123456789ab_" + String(repeating: "a", count: 64) + "_x",
        " sck_0123456789ab_" + String(repeating: "a", count: 64),
    ])
    func malformed(_ text: String) {
        #expect(APIKeyToken(parsing: text) == nil)
    }

    @Test("signatures: sign and verify, tolerance both ways, several values, constant-format checks")
    func signatures() throws {
        let secret = SigningSecret.generate()
        let body = Array(#"{"id":"e1"}"#.utf8)
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let verifier = RequestSignature(tolerance: 60)
        let signature = RequestSignature.sign(body: body, timestamp: 1_800_000_000, secret: secret)
        #expect(signature.hasPrefix("v1=") && signature.count == 67)
        // Known-answer check against HMAC directly: "timestamp." + body under the secret's text.
        let expected = HMACSHA256.authenticate(message: Array("1800000000.".utf8) + body, key: Array(secret.text.utf8))
        #expect(signature == "v1=" + Hex.encode(expected))

        try verifier.verify(timestamp: "1800000000", signature: signature, body: body, secret: secret, now: now)
        try verifier.verify(timestamp: "1800000000", signature: "v1=" + String(repeating: "0", count: 64) + ", " + signature,
                            body: body, secret: secret, now: now.addingTimeInterval(60))
        #expect(throws: RequestSignature.Failure.expired(tolerance: 60)) {
            try verifier.verify(timestamp: "1800000000", signature: signature, body: body, secret: secret, now: now.addingTimeInterval(61))
        }
        #expect(throws: RequestSignature.Failure.expired(tolerance: 60)) {
            try verifier.verify(timestamp: "1800000000", signature: signature, body: body, secret: secret, now: now.addingTimeInterval(-61))
        }
        #expect(throws: RequestSignature.Failure.mismatch) {
            try verifier.verify(timestamp: "1800000000", signature: signature, body: body + [0x20], secret: secret, now: now)
        }
        #expect(throws: RequestSignature.Failure.mismatch) {
            try verifier.verify(timestamp: "1800000000", signature: signature, body: body, secret: SigningSecret.generate(), now: now)
        }
        #expect(throws: RequestSignature.Failure.missing) {
            try verifier.verify(timestamp: nil, signature: signature, body: body, secret: secret, now: now)
        }
        for bad in ["-5", "1.5", "abc", "", "99999999999999"] {
            #expect(throws: RequestSignature.Failure.malformedTimestamp) {
                try verifier.verify(timestamp: bad, signature: signature, body: body, secret: secret, now: now)
            }
        }
        for bad in ["", "v2=" + String(repeating: "0", count: 64), "v1=xyz", "v1=" + String(repeating: "g", count: 64)] {
            #expect(throws: RequestSignature.Failure.malformedSignature) {
                try verifier.verify(timestamp: "1800000000", signature: bad, body: body, secret: secret, now: now)
            }
        }
        for failure in [RequestSignature.Failure.mismatch, .malformedSignature, .missing] {
            #expect(!failure.description.contains(secret.text))
        }
    }

    /// Runs `body` with a key store on a migrated schema of its own, closing the pool after.
    private static func withKeyStore(_ body: (PostgresPool, APIKeyStore) async throws -> Void) async throws {
        try await TestDatabase.shared().withPool { pool in
            try await Migrator(files: IngestFixture.schemaFiles, logger: TestDatabase.logger).migrate(pool)
            try await body(pool, APIKeyStore(pool: pool, keyring: nil))
        }
    }

    @Test("key store: create (hash only), names unique and checked, list, revoke, find")
    func store() async throws {
        try await Self.withKeyStore { pool, store in
            let plain = try await store.create(name: "opta", signed: false)
            let signed = try await store.create(name: "sportradar.live", signed: true)
            #expect(plain.signingSecret == nil && !plain.record.requiresSignature)
            #expect(signed.signingSecret?.text.hasPrefix("scs_") == true && signed.record.requiresSignature)
            #expect(plain.record.secretHash == plain.token.hash)

            let stored = try await pool.query("SELECT encode(secret_hash, 'hex') AS h, prefix FROM api_keys WHERE name = 'opta'")
            let hex: String = try #require(stored.first).decode("h")
            #expect(hex == Hex.encode(plain.token.hash))
            let everything = try await pool.query("SELECT row_to_json(api_keys)::text AS row FROM api_keys WHERE name = 'opta'")
            let text: String = try #require(everything.first).decode("row")
            #expect(!text.contains(plain.token.text.split(separator: "_")[2]), "the secret is not stored")

            await #expect(throws: APIKeyStore.CreateError.nameTaken("opta")) { try await store.create(name: "opta", signed: false) }
            await #expect(throws: APIKeyStore.CreateError.invalidName) { try await store.create(name: "has space", signed: false) }
            await #expect(throws: APIKeyStore.CreateError.invalidName) { try await store.create(name: "", signed: false) }

            #expect(try await store.all().map(\.name) == ["opta", "sportradar.live"])
            #expect(try await store.find(prefix: plain.token.prefix)?.name == "opta")
            #expect(try await store.find(prefix: "000000000000") == nil)

            let revoked = try #require(try await store.revoke(name: "opta"))
            #expect(revoked.revokedAt != nil)
            let again = try #require(try await store.revoke(name: "opta"))
            #expect(again.revokedAt == revoked.revokedAt, "revoking twice keeps the first time")
            #expect(try await store.revoke(name: "nobody") == nil)

            // The last use is dated by the service clock, and written at most once a minute.
            let used = Date(timeIntervalSince1970: 1_795_993_200)
            try await store.touch(id: plain.record.id, now: used)
            #expect(try await store.find(prefix: plain.token.prefix)?.lastUsedAt == used)
            try await store.touch(id: plain.record.id, now: used.addingTimeInterval(59))
            #expect(try await store.find(prefix: plain.token.prefix)?.lastUsedAt == used, "used again within the minute: not written")
            try await store.touch(id: plain.record.id, now: used.addingTimeInterval(61))
            #expect(try await store.find(prefix: plain.token.prefix)?.lastUsedAt == used.addingTimeInterval(61))
        }
    }

    @Test("the key cache looks a found key up once per lifetime, an unknown prefix every time; revocation shows after the lifetime")
    func cache() async throws {
        try await Self.withKeyStore { _, store in
            let key = try await store.create(name: "opta", signed: false)
            let clock = ManualServiceClock(IngestFixture.start)
            let lookups = Mutex(0)
            let cache = APIKeyCache(lookup: { prefix in
                lookups.withLock { $0 += 1 }
                return try await store.find(prefix: prefix)
            }, clock: clock)

            #expect(try await cache.find(prefix: key.token.prefix)?.name == "opta")
            clock.advance(by: .seconds(APIKeyCache.lifetime / 2))
            #expect(try await cache.find(prefix: key.token.prefix)?.name == "opta")
            #expect(lookups.withLock { $0 } == 1, "the second request used the kept key")

            // Revoked: still the kept copy until the lifetime has passed, then refused.
            _ = try await store.revoke(name: "opta")
            #expect(try await cache.find(prefix: key.token.prefix)?.revokedAt == nil)
            clock.advance(by: .seconds(APIKeyCache.lifetime / 2))
            #expect(try await cache.find(prefix: key.token.prefix)?.revokedAt != nil)
            #expect(lookups.withLock { $0 } == 2)

            // An unknown prefix is asked for every time, so a key created after a miss is found at once.
            let unknown = APIKeyToken.generate().prefix
            #expect(try await cache.find(prefix: unknown) == nil)
            #expect(try await cache.find(prefix: unknown) == nil)
            #expect(lookups.withLock { $0 } == 4)

            // A recorded use is written into the kept copy: the next request does not touch the key again.
            let used = clock.now()
            cache.noteUsed(keyID: key.record.id, at: used)
            #expect(try await cache.find(prefix: key.token.prefix)?.lastUsedAt == used)
            #expect(lookups.withLock { $0 } == 4)
        }
    }
}
