import Foundation
import ScorecastCrypto

extension UUID {
    /// A fresh random (version 4) id for `apns-request-id` or `apns-id`. Foundation's `UUID()`
    /// opens, reads and closes `/dev/urandom` for every id on Linux (three system calls and a
    /// path lookup, seen with strace); these 16 bytes come from OpenSSL's generator in user space.
    public static func randomRequestID() -> UUID {
        let random = SecureRandom.bytes(16)
        var uuid: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &uuid) { bytes in
            for index in 0..<16 { bytes[index] = random[index] }
            bytes[6] = (bytes[6] & 0x0F) | 0x40  // version 4: random
            bytes[8] = (bytes[8] & 0x3F) | 0x80  // the RFC 4122 variant
        }
        return UUID(uuid: uuid)
    }

    /// The canonical lowercase form APNs requires of `apns-id` and `apns-request-id`
    /// (apns.md §2), written directly: `uuidString` formats with `sprintf` and `lowercased()`
    /// copies it again, both on every request.
    var lowercasedString: String {
        String(unsafeUninitializedCapacity: 36) { out in
            let digits: StaticString = "0123456789abcdef"
            let hex = digits.utf8Start
            var at = 0
            withUnsafeBytes(of: uuid) { bytes in
                for (index, byte) in bytes.enumerated() {
                    if index == 4 || index == 6 || index == 8 || index == 10 {
                        out[at] = UInt8(ascii: "-")
                        at += 1
                    }
                    out[at] = hex[Int(byte >> 4)]
                    out[at + 1] = hex[Int(byte & 0x0F)]
                    at += 2
                }
            }
            return at
        }
    }
}
