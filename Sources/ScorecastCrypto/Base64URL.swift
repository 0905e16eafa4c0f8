/// Base64url without padding (RFC 4648 §5), as JOSE uses it (RFC 7515 §2).
public enum Base64URL {
    /// Encodes `bytes` with the URL-safe alphabet (`-`, `_`) and no `=` padding.
    public static func encode(_ bytes: [UInt8]) -> String {
        Base64.encode(bytes, alphabet: Base64.urlAlphabet, padding: false)
    }

    /// Decodes unpadded base64url, or returns nil for anything else: `=` padding, characters
    /// outside the URL-safe alphabet (including `+`, `/` and whitespace), an impossible length,
    /// or non-zero unused trailing bits (so each byte string has exactly one encoding).
    public static func decode(_ text: some StringProtocol) -> [UInt8]? {
        Base64.decode(Array(text.utf8), table: Base64.urlDecodeTable)
    }
}

/// Standard and URL-safe base64 shared by `Base64URL` and PEM formatting.
enum Base64 {
    static let standardAlphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
    static let urlAlphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// Maps an ASCII byte to its 6-bit value, or 0xFF when it is not in the URL-safe alphabet.
    static let urlDecodeTable: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (value, character) in urlAlphabet.enumerated() {
            table[Int(character)] = UInt8(value)
        }
        return table
    }()

    /// Standard base64 with padding (for PEM bodies).
    static func encode(_ bytes: [UInt8]) -> String {
        encode(bytes, alphabet: standardAlphabet, padding: true)
    }

    static func encode(_ bytes: [UInt8], alphabet: [UInt8], padding: Bool) -> String {
        var output: [UInt8] = []
        output.reserveCapacity((bytes.count + 2) / 3 * 4)
        var index = 0
        while index + 3 <= bytes.count {
            let chunk = UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8 | UInt32(bytes[index + 2])
            output.append(alphabet[Int(chunk >> 18 & 0x3F)])
            output.append(alphabet[Int(chunk >> 12 & 0x3F)])
            output.append(alphabet[Int(chunk >> 6 & 0x3F)])
            output.append(alphabet[Int(chunk & 0x3F)])
            index += 3
        }
        let remaining = bytes.count - index
        if remaining == 1 {
            let chunk = UInt32(bytes[index]) << 16
            output.append(alphabet[Int(chunk >> 18 & 0x3F)])
            output.append(alphabet[Int(chunk >> 12 & 0x3F)])
            if padding { output.append(contentsOf: [UInt8(ascii: "="), UInt8(ascii: "=")]) }
        } else if remaining == 2 {
            let chunk = UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8
            output.append(alphabet[Int(chunk >> 18 & 0x3F)])
            output.append(alphabet[Int(chunk >> 12 & 0x3F)])
            output.append(alphabet[Int(chunk >> 6 & 0x3F)])
            if padding { output.append(UInt8(ascii: "=")) }
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// Decodes unpadded text with `table`; nil on any invalid character, length or trailing bits.
    static func decode(_ text: [UInt8], table: [UInt8]) -> [UInt8]? {
        // 4n+1 characters cannot come from any byte string.
        guard text.count % 4 != 1 else { return nil }
        var output: [UInt8] = []
        output.reserveCapacity(text.count * 3 / 4)
        var accumulator: UInt32 = 0
        var bits = 0
        for character in text {
            let value = table[Int(character)]
            guard value != 0xFF else { return nil }
            accumulator = accumulator << 6 | UInt32(value)
            bits += 6
            if bits >= 8 {
                bits -= 8
                output.append(UInt8(truncatingIfNeeded: accumulator >> UInt32(bits)))
                accumulator &= (1 << UInt32(bits)) - 1
            }
        }
        // Leftover bits must be zero, or another encoding would decode to the same bytes.
        guard accumulator == 0 else { return nil }
        return output
    }
}
