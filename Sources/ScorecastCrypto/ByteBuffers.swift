extension Array where Element == UInt8 {
    /// Runs `body` with a pointer that is never nil, even for an empty array.
    ///
    /// Some OpenSSL routines treat a NULL buffer specially (HMAC's "reuse the previous key"),
    /// while Swift may hand out a nil base address for empty arrays.
    func withNonNullBytes<T>(_ body: (UnsafePointer<UInt8>, Int) throws -> T) rethrows -> T {
        try withUnsafeBufferPointer { buffer in
            if let base = buffer.baseAddress {
                return try body(base, buffer.count)
            }
            var placeholder: UInt8 = 0
            return try withUnsafePointer(to: &placeholder) { try body($0, 0) }
        }
    }
}
