internal import COpenSSL

/// SHA-256 (FIPS 180-4) through libcrypto.
public enum SHA256 {
    /// Size of a digest in bytes.
    public static let byteCount = 32

    /// The 32-byte SHA-256 digest of `bytes`.
    public static func hash(_ bytes: [UInt8]) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: byteCount)
        var length: UInt32 = 0
        let status = bytes.withNonNullBytes { input, count in
            EVP_Digest(input, count, &digest, &length, EVP_sha256(), nil)
        }
        // Only a broken libcrypto installation fails here (no input can); a zeroed digest
        // returned instead would silently break every check built on it.
        precondition(status == 1 && length == UInt32(byteCount), "libcrypto could not compute SHA-256")
        return digest
    }

    /// The SHA-256 digest of `bytes` as 64 lowercase hex characters.
    public static func hexDigest(_ bytes: [UInt8]) -> String {
        Hex.encode(hash(bytes))
    }
}
