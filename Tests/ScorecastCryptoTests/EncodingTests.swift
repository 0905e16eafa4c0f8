import ScorecastCrypto
import Foundation
import Testing

@Suite struct Base64URLTests {
    @Test func knownVectorsFromRFC4648() {
        // RFC 4648 §10, with padding removed and the URL alphabet.
        let vectors: [(String, String)] = [
            ("", ""), ("f", "Zg"), ("fo", "Zm8"), ("foo", "Zm9v"), ("foob", "Zm9vYg"),
            ("fooba", "Zm9vYmE"), ("foobar", "Zm9vYmFy"),
        ]
        for (plain, encoded) in vectors {
            #expect(Base64URL.encode(Array(plain.utf8)) == encoded)
            #expect(Base64URL.decode(encoded) == Array(plain.utf8))
        }
    }

    @Test func usesTheURLSafeAlphabet() {
        // 0xFB 0xFF 0xBF is "+/+/" in standard base64.
        #expect(Base64URL.encode([0xFB, 0xFF, 0xBF]) == "-_-_")
        #expect(Base64URL.decode("-_-_") == [0xFB, 0xFF, 0xBF])
    }

    @Test func roundTripsEveryLengthAndMatchesFoundation() {
        for length in 0...70 {
            let bytes = SecureRandom.bytes(length)
            let encoded = Base64URL.encode(bytes)
            #expect(!encoded.contains("="))
            #expect(encoded.count == (length * 4 + 2) / 3)
            #expect(Base64URL.decode(encoded) == bytes, "length \(length)")
            // Foundation's base64, translated, is an independent reference.
            let reference = Data(bytes).base64EncodedString()
                .replacingOccurrences(of: "+", with: "-")
                .replacingOccurrences(of: "/", with: "_")
                .replacingOccurrences(of: "=", with: "")
            #expect(encoded == reference, "length \(length)")
        }
    }

    @Test func rejectsInvalidInput() {
        #expect(Base64URL.decode("Zg==") == nil, "padding")
        #expect(Base64URL.decode("Z") == nil, "impossible length 4n+1")
        #expect(Base64URL.decode("Zm9vY") == nil, "impossible length 4n+1")
        #expect(Base64URL.decode("+/+/") == nil, "standard alphabet")
        #expect(Base64URL.decode("Zm 9v") == nil, "whitespace")
        #expect(Base64URL.decode("Zm9v\n") == nil, "newline")
        #expect(Base64URL.decode("Zh") == nil, "non-zero trailing bits (Zg is canonical)")
        #expect(Base64URL.decode("Zm9") == nil, "non-zero trailing bits (Zm8 is canonical)")
        #expect(Base64URL.decode("é") == nil, "non-ASCII")
    }
}

@Suite struct DigestTests {
    @Test func sha256KnownVectors() {
        // FIPS 180-4 examples and the empty string.
        #expect(SHA256.hexDigest([]) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(SHA256.hexDigest(Array("abc".utf8)) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(SHA256.hexDigest(Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8))
                == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        let million = [UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000)
        #expect(SHA256.hexDigest(million) == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
        #expect(SHA256.hash(Array("abc".utf8)).count == 32)
    }

    /// RFC 4231 §4.2–4.8 (test case 5 is a truncated tag: compared on its first 16 bytes).
    @Test(arguments: HMACVector.rfc4231)
    func hmacSHA256MatchesRFC4231(vector: HMACVector) throws {
        let key = try #require(Hex.decode(vector.key))
        let data = try #require(Hex.decode(vector.data))
        let tag = HMACSHA256.authenticate(message: data, key: key)
        #expect(tag.count == 32)
        #expect(Hex.encode(Array(tag.prefix(vector.tag.count / 2))) == vector.tag, "case \(vector.name)")
        #expect(HMACSHA256.isValid(tag: tag, message: data, key: key))
        var wrong = tag
        wrong[31] ^= 1
        #expect(!HMACSHA256.isValid(tag: wrong, message: data, key: key))
    }

    @Test func hmacWithEmptyKeyAndMessage() {
        // Python: hmac.new(b"", b"", hashlib.sha256).hexdigest()
        #expect(Hex.encode(HMACSHA256.authenticate(message: [], key: []))
                == "b613679a0814d9ec772f95d778c35fc5ff1697c493715653c6c712144292c5ad")
    }

    @Test func hexRoundTripAndRejects() {
        #expect(Hex.encode([0x00, 0x0F, 0xA0, 0xFF]) == "000fa0ff")
        #expect(Hex.decode("000FA0ff") == [0x00, 0x0F, 0xA0, 0xFF])
        #expect(Hex.decode("abc") == nil)
        #expect(Hex.decode("zz") == nil)
        #expect(Hex.decode("") == [])
    }
}

struct HMACVector: Sendable, CustomTestStringConvertible {
    let name: String
    let key: String
    let data: String
    let tag: String
    var testDescription: String { "RFC 4231 case \(name)" }

    static let rfc4231: [HMACVector] = [
        HMACVector(name: "1", key: String(repeating: "0b", count: 20), data: "4869205468657265",
                   tag: "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"),
        HMACVector(name: "2", key: "4a656665", data: "7768617420646f2079612077616e7420666f72206e6f7468696e673f",
                   tag: "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"),
        HMACVector(name: "3", key: String(repeating: "aa", count: 20), data: String(repeating: "dd", count: 50),
                   tag: "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe"),
        HMACVector(name: "4", key: "0102030405060708090a0b0c0d0e0f10111213141516171819",
                   data: String(repeating: "cd", count: 50),
                   tag: "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b"),
        HMACVector(name: "5", key: String(repeating: "0c", count: 20), data: "546573742057697468205472756e636174696f6e",
                   tag: "a3b6167473100ee06e0c796c2955552b"),
        HMACVector(name: "6", key: String(repeating: "aa", count: 131),
                   data: "54657374205573696e67204c6172676572205468616e20426c6f636b2d53697a65204b6579202d2048617368204b6579204669727374",
                   tag: "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"),
        HMACVector(name: "7", key: String(repeating: "aa", count: 131),
                   data: "5468697320697320612074657374207573696e672061206c6172676572207468616e20626c6f636b2d73697a65206b657920616e642061206c6172676572207468616e20626c6f636b2d73697a6520646174612e20546865206b6579206e6565647320746f20626520686173686564206265666f7265206265696e6720757365642062792074686520484d414320616c676f726974686d2e",
                   tag: "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2"),
    ]
}

@Suite struct ConstantTimeAndRandomTests {
    @Test func constantTimeEquals() {
        #expect(ConstantTime.equals([], []))
        #expect(ConstantTime.equals([1, 2, 3], [1, 2, 3]))
        #expect(!ConstantTime.equals([1, 2, 3], [1, 2, 4]))
        #expect(!ConstantTime.equals([0, 2, 3], [1, 2, 3]))
        #expect(!ConstantTime.equals([1, 2, 3], [1, 2]))
        #expect(!ConstantTime.equals([1, 2], [1, 2, 3]))
        #expect(!ConstantTime.equals([], [0]))
        let long = SecureRandom.bytes(4096)
        var changed = long
        changed[4095] ^= 0x80
        #expect(ConstantTime.equals(long, long))
        #expect(!ConstantTime.equals(long, changed))
    }

    @Test func randomBytesAreFreshAndOfTheRightSize() {
        #expect(SecureRandom.bytes(0) == [])
        #expect(SecureRandom.bytes(-3) == [])
        #expect(SecureRandom.bytes(1).count == 1)
        let samples = (0..<100).map { _ in SecureRandom.bytes(32) }
        #expect(Set(samples).count == 100)
        // Over 64 KiB, every byte value should appear (probability of a miss ≈ 256·e^-256).
        #expect(Set(SecureRandom.bytes(65_536)).count == 256)
    }

    @Test func tokensAreBase64URLOfTheRequestedSize() throws {
        let token = SecureRandom.token()
        #expect(token.count == 43)
        #expect(try #require(Base64URL.decode(token)).count == 32)
        #expect(SecureRandom.token(byteCount: 16).count == 22)
        #expect(SecureRandom.token() != SecureRandom.token())
    }
}
