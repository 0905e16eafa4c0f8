internal import COpenSSL

/// Cryptographically secure random bytes and tokens.
public enum SecureRandom {
    /// `count` random bytes from OpenSSL's CSPRNG (`RAND_bytes`); empty for `count <= 0`.
    ///
    /// Should `RAND_bytes` ever fail, the bytes come from the system generator instead
    /// (`SystemRandomNumberGenerator`, also cryptographically secure: `getrandom(2)` on Linux).
    public static func bytes(_ count: Int) -> [UInt8] {
        guard count > 0 else { return [] }
        var output = [UInt8](repeating: 0, count: count)
        var filled = 0
        // RAND_bytes takes an Int32 count: fill in chunks.
        while filled < count {
            let chunk = min(count - filled, 1 << 30)
            let status = output.withUnsafeMutableBufferPointer { buffer -> Int32 in
                guard let base = buffer.baseAddress else { return 0 }
                return RAND_bytes(base + filled, Int32(chunk))
            }
            if status != 1 {
                OpenSSLErrorQueue.clear()
                var generator = SystemRandomNumberGenerator()
                for index in filled..<count {
                    output[index] = generator.next()
                }
                return output
            }
            filled += chunk
        }
        return output
    }

    /// A random token of `byteCount` bytes (default 32, i.e. 256 bits), base64url without padding.
    public static func token(byteCount: Int = 32) -> String {
        Base64URL.encode(bytes(byteCount))
    }
}
