import Foundation

extension UUID {
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
