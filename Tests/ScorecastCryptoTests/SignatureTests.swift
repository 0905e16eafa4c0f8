import ScorecastCrypto
import Dispatch
import Synchronization
import Testing

@Suite struct ES256SignatureTests {
    @Test func signaturesAreAlways64BytesAndVerify() throws {
        let key = try P256PrivateKey.generate()
        for index in 0..<200 {
            let message = SecureRandom.bytes(index)
            let signature = try key.signES256(message)
            #expect(signature.count == 64)
            #expect(key.publicKey.verifyES256(signature: signature, message: message))
        }
    }

    /// About 1 in 128 signatures has an R or S below 2^248; BN_bn2bin would shorten those.
    /// 2,000 signatures all but guarantee some (a miss has probability ≈ e^-15).
    @Test func coordinatesWithLeadingZeroBytesKeepTheirWidth() throws {
        let key = try P256PrivateKey.generate()
        let message = Array("leading zeros".utf8)
        var withLeadingZero = 0
        for _ in 0..<2_000 {
            let signature = try key.signES256(message)
            #expect(signature.count == 64)
            if signature[0] == 0 || signature[32] == 0 {
                withLeadingZero += 1
                #expect(key.publicKey.verifyES256(signature: signature, message: message))
            }
        }
        #expect(withLeadingZero > 0)
    }

    @Test func tamperedMessagesAndSignaturesFail() throws {
        let key = try P256PrivateKey.generate()
        let message = Array("{\"iss\":\"TEAM123456\",\"iat\":1764453600}".utf8)
        let signature = try key.signES256(message)
        #expect(key.publicKey.verifyES256(signature: signature, message: message))

        var changedMessage = message
        changedMessage[5] ^= 0x01
        #expect(!key.publicKey.verifyES256(signature: signature, message: changedMessage))
        #expect(!key.publicKey.verifyES256(signature: signature, message: message + [0x20]))

        for index in [0, 31, 32, 63] {
            var changed = signature
            changed[index] ^= 0x01
            #expect(!key.publicKey.verifyES256(signature: changed, message: message), "byte \(index) flipped")
        }
        #expect(!key.publicKey.verifyES256(signature: Array(signature.prefix(63)), message: message))
        #expect(!key.publicKey.verifyES256(signature: signature + [0], message: message))
        #expect(!key.publicKey.verifyES256(signature: [], message: message))
        #expect(!key.publicKey.verifyES256(signature: [UInt8](repeating: 0, count: 64), message: message))
        #expect(!key.publicKey.verifyES256(signature: [UInt8](repeating: 0xFF, count: 64), message: message))

        let otherKey = try P256PrivateKey.generate()
        #expect(!otherKey.publicKey.verifyES256(signature: signature, message: message))
    }

    @Test func signaturesAreRandomized() throws {
        let key = try P256PrivateKey.generate()
        let message = Array("same message".utf8)
        #expect(try key.signES256(message) != key.signES256(message))
    }

    @Test func oneKeySignsFromManyThreadsAtOnce() throws {
        let key = try P256PrivateKey.generate()
        let failures = Mutex(0)
        DispatchQueue.concurrentPerform(iterations: 8) { thread in
            for index in 0..<100 {
                let message = Array("thread \(thread) message \(index)".utf8)
                let valid = (try? key.signES256(message)).map {
                    $0.count == 64 && key.publicKey.verifyES256(signature: $0, message: message)
                } ?? false
                if !valid { failures.withLock { $0 += 1 } }
            }
        }
        #expect(failures.withLock { $0 } == 0)
    }
}
