internal import COpenSSL

/// HMAC-SHA-256 (RFC 2104) through libcrypto, for webhook and API request signatures.
public enum HMACSHA256 {
    /// Size of a tag in bytes.
    public static let byteCount = 32

    /// The 32-byte HMAC-SHA-256 tag of `message` under `key` (any length, including empty).
    public static func authenticate(message: [UInt8], key: [UInt8]) -> [UInt8] {
        var tag = [UInt8](repeating: 0, count: byteCount)
        var length: UInt32 = 0
        let result = key.withNonNullBytes { keyBytes, keyCount in
            message.withNonNullBytes { messageBytes, messageCount in
                HMAC(EVP_sha256(), keyBytes, Int32(clamping: keyCount), messageBytes, messageCount, &tag, &length)
            }
        }
        // Keys longer than Int32.max cannot be passed; no real key comes near that. Any other
        // failure means a broken libcrypto, and a zeroed tag must never be returned instead.
        precondition(result != nil && length == UInt32(byteCount) && key.count <= Int(Int32.max),
                     "libcrypto could not compute HMAC-SHA-256")
        return tag
    }

    /// Whether `tag` is the HMAC-SHA-256 of `message` under `key`, compared in constant time.
    public static func isValid(tag: [UInt8], message: [UInt8], key: [UInt8]) -> Bool {
        ConstantTime.equals(authenticate(message: message, key: key), tag)
    }
}
