import Foundation
import ScorecastCrypto
import Testing

@Suite("AES-256-GCM and the sealing keyring")
struct SealingTests {
    let zeroKey = [UInt8](repeating: 0, count: 32)

    @Test("opens the published GCM test vectors (AES-256, zero key and nonce)")
    func publishedVectors() throws {
        let nonce = [UInt8](repeating: 0, count: 12)
        let sixteenZeros = nonce + (Hex.decode("cea7403d4d606b6e074ec5d3baf39d18d0d1c8a799996bf0265b98b5d48ab919") ?? [])
        #expect(try AES256GCM.open(sixteenZeros, key: zeroKey) == [UInt8](repeating: 0, count: 16))
        let empty = nonce + (Hex.decode("530f8afbc74536b9a963b4f1c4cb738b") ?? [])
        #expect(try AES256GCM.open(empty, key: zeroKey) == [])
    }

    @Test("seal then open round-trips; a fresh nonce each time; a changed byte, key or context does not open")
    func roundTripAndTampering() throws {
        let key = SecureRandom.bytes(32)
        let secret = Array("scs_0123456789abcdef".utf8)
        let sealed = try AES256GCM.seal(secret, key: key, associatedData: Array("row-1".utf8))
        #expect(sealed.count == 12 + secret.count + 16)
        #expect(try AES256GCM.open(sealed, key: key, associatedData: Array("row-1".utf8)) == secret)
        #expect(try AES256GCM.seal(secret, key: key, associatedData: Array("row-1".utf8)) != sealed)
        var altered = sealed
        altered[14] ^= 1
        for (value, openKey, context) in [(altered, key, "row-1"), (sealed, SecureRandom.bytes(32), "row-1"), (sealed, key, "row-2")] {
            let error = #expect(throws: CryptoError.self) { try AES256GCM.open(value, key: openKey, associatedData: Array(context.utf8)) }
            #expect(error?.code == .decryptionFailed)
        }
        #expect(throws: CryptoError.self) { try AES256GCM.seal(secret, key: [1, 2, 3]) }
    }

    @Test("the keyring seals with its first key, opens with any, and names an unknown key by its id only")
    func keyringRotation() throws {
        let old = Hex.encode(SecureRandom.bytes(32))
        let new = Hex.encode(SecureRandom.bytes(32))
        let before = try SealingKeyring(hexKeys: [old])
        let during = try SealingKeyring(hexKeys: [new, old])
        let after = try SealingKeyring(hexKeys: [new])
        let context = Array("api_keys.hmac_secret:abc".utf8)
        let sealedOld = try before.seal(Array("secret".utf8), context: context)
        #expect(try during.open(sealedOld, context: context) == Array("secret".utf8))
        #expect(!during.isSealedWithCurrentKey(sealedOld))
        let sealedNew = try during.seal(Array("secret".utf8), context: context)
        #expect(during.isSealedWithCurrentKey(sealedNew))
        #expect(try after.open(sealedNew, context: context) == Array("secret".utf8))
        let error = #expect(throws: CryptoError.self) { try after.open(sealedOld, context: context) }
        #expect(error?.description.contains("sealed with key \(before.currentKeyID), which is not among the configured keys (\(after.currentKeyID))") == true)
        #expect(error?.description.contains(old) == false && error?.description.contains(new) == false, "no key in an error")
    }

    @Test("keys: 64 hex characters each; a file holds one a line, # lines skipped; errors never show a key")
    func keyParsing() throws {
        #expect(throws: CryptoError.self) { try SealingKeyring(hexKeys: []) }
        let short = String(repeating: "ab", count: 31)
        let error = #expect(throws: CryptoError.self) { try SealingKeyring(hexKeys: [short]) }
        #expect(error?.description == "invalidArgument: key 1 is not 64 hexadecimal characters (`openssl rand -hex 32` makes one)")
        let file = NSTemporaryDirectory() + "sealing-keys-\(UUID().uuidString)"
        defer { unlink(file) }
        let current = Hex.encode(SecureRandom.bytes(32))
        try "# scorecast secrets key\n\(current)\n\n".write(toFile: file, atomically: true, encoding: .utf8)
        #expect(try SealingKeyring.load(file: file).currentKeyID == (try SealingKeyring(hexKeys: [current])).currentKeyID)
        let missing = #expect(throws: CryptoError.self) { try SealingKeyring.load(file: file + "-missing") }
        #expect(missing?.code == .unreadableFile)
    }
}
