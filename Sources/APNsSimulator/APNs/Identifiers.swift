/// Making and checking the identifiers APNs exchanges: request ids (UUIDs), channel ids,
/// device tokens. Pure apart from randomness.
enum Identifiers {
    /// A random (version 4) UUID in lowercase canonical form, as APNs sends `apns-unique-id`.
    static func uuid(using generator: inout FastRandom) -> String {
        let high = (generator.next() & 0xFFFF_FFFF_FFFF_0FFF) | 0x0000_0000_0000_4000
        let low = (generator.next() & 0x3FFF_FFFF_FFFF_FFFF) | 0x8000_0000_0000_0000
        var text = (0 as UInt8, 0 as UInt8, 0 as UInt8, 0 as UInt8, 0 as UInt8, 0 as UInt8, 0 as UInt8, 0 as UInt8,
                    0 as UInt8, 0 as UInt8, 0 as UInt8, 0 as UInt8, 0 as UInt8, 0 as UInt8, 0 as UInt8, 0 as UInt8,
                    0 as UInt8, 0 as UInt8, 0 as UInt8, 0 as UInt8, 0 as UInt8, 0 as UInt8, 0 as UInt8, 0 as UInt8,
                    0 as UInt8, 0 as UInt8, 0 as UInt8, 0 as UInt8, 0 as UInt8, 0 as UInt8, 0 as UInt8, 0 as UInt8,
                    0 as UInt8, 0 as UInt8, 0 as UInt8, 0 as UInt8)
        return withUnsafeMutableBytes(of: &text) { buffer in
            let digits = ("0123456789abcdef" as StaticString).utf8Start
            var position = 0
            func put(_ word: UInt64, dashesAt first: Int, _ second: Int) {
                for shift in stride(from: 60, through: 0, by: -4) {
                    if position == first || position == second {
                        buffer[position] = UInt8(ascii: "-")
                        position += 1
                    }
                    buffer[position] = digits[Int((word >> UInt64(shift)) & 0xF)]
                    position += 1
                }
            }
            put(high, dashesAt: 8, 13)
            put(low, dashesAt: 18, 23)
            return String(decoding: buffer, as: UTF8.self)
        }
    }

    /// A random UUID from a freshly seeded generator (off the hot path).
    static func uuid() -> String {
        var generator = FastRandom()
        return uuid(using: &generator)
    }

    /// Whether `text` is a canonical UUID in lowercase (8-4-4-4-12 hex digits), the form APNs
    /// requires for `apns-request-id` and `apns-id` (apns.md §2).
    static func isLowercaseUUID(_ text: String) -> Bool {
        let utf8 = text.utf8
        guard utf8.count == 36 else { return false }
        for (offset, byte) in utf8.enumerated() {
            if offset == 8 || offset == 13 || offset == 18 || offset == 23 {
                guard byte == UInt8(ascii: "-") else { return false }
            } else {
                guard (byte >= 0x30 && byte <= 0x39) || (byte >= 0x61 && byte <= 0x66) else { return false }
            }
        }
        return true
    }

    /// A new channel id: 16 random bytes in standard base64 (24 characters), like Apple's.
    static func channelID() -> String {
        // SystemRandomNumberGenerator is the kernel's CSPRNG (getrandom) on Linux.
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<16).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        return base64(bytes)
    }

    /// Whether `text` is shaped like a channel id: standard base64 with padding only at the end.
    /// (Apple's ids are opaque base64; anything else is `BadChannelId`.)
    static func isWellFormedChannelID(_ text: String) -> Bool {
        let utf8 = Array(text.utf8)
        guard !utf8.isEmpty, utf8.count % 4 == 0, utf8.count <= 256 else { return false }
        var padding = 0
        for byte in utf8 {
            if byte == UInt8(ascii: "=") {
                padding += 1
                continue
            }
            guard padding == 0 else { return false }
            let isBase64 = (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x30 && byte <= 0x39)
                || byte == UInt8(ascii: "+") || byte == UInt8(ascii: "/")
            guard isBase64 else { return false }
        }
        return padding <= 2
    }

    /// Whether `token` is a plausible device token: an even number (64–512) of hex digits.
    /// Push-to-start tokens are longer than the classic 64, so only the shape is checked.
    static func isWellFormedDeviceToken(_ token: String) -> Bool {
        let utf8 = token.utf8
        guard utf8.count >= 64, utf8.count <= 512, utf8.count % 2 == 0 else { return false }
        return utf8.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x66) || ($0 >= 0x41 && $0 <= 0x46) }
    }

    private static let base64Alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    /// Standard base64 with padding.
    static func base64(_ bytes: [UInt8]) -> String {
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count + 2) / 3 * 4)
        var index = 0
        while index + 3 <= bytes.count {
            let value = UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8 | UInt32(bytes[index + 2])
            for shift in [18, 12, 6, 0] { out.append(base64Alphabet[Int((value >> UInt32(shift)) & 0x3F)]) }
            index += 3
        }
        let rest = bytes.count - index
        if rest > 0 {
            var value = UInt32(bytes[index]) << 16
            if rest == 2 { value |= UInt32(bytes[index + 1]) << 8 }
            out.append(base64Alphabet[Int((value >> 18) & 0x3F)])
            out.append(base64Alphabet[Int((value >> 12) & 0x3F)])
            out.append(rest == 2 ? base64Alphabet[Int((value >> 6) & 0x3F)] : UInt8(ascii: "="))
            out.append(UInt8(ascii: "="))
        }
        return String(decoding: out, as: UTF8.self)
    }
}
