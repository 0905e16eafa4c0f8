internal import COpenSSL

/// Comparisons whose running time does not depend on where secret bytes differ.
public enum ConstantTime {
    /// Whether `lhs` and `rhs` hold the same bytes.
    ///
    /// Lengths are not secret: different lengths return `false` at once, without looking at any
    /// content. Equal lengths are compared with `CRYPTO_memcmp`, which reads every byte.
    public static func equals(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool {
        guard lhs.count == rhs.count else { return false }
        return lhs.withNonNullBytes { left, count in
            rhs.withNonNullBytes { right, _ in
                CRYPTO_memcmp(left, right, count) == 0
            }
        }
    }
}
