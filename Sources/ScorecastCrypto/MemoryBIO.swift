internal import COpenSSL

/// OpenSSL's PEM and DER routines read from and write to BIOs; these helpers run them over
/// memory BIOs so no temporary files are involved.
enum MemoryBIO {
    /// Runs `body` with a read-only BIO over `bytes`.
    ///
    /// `BIO_new_mem_buf` does not copy, so the BIO lives only inside the buffer's scope.
    static func reading<T>(_ bytes: [UInt8], _ body: (OpaquePointer) throws -> T) throws -> T {
        guard bytes.count <= Int(Int32.max) else {
            throw CryptoError(code: .invalidArgument, context: "input of \(bytes.count) bytes is too large")
        }
        return try bytes.withUnsafeBytes { raw in
            guard let bio = BIO_new_mem_buf(raw.baseAddress, Int32(raw.count)) else {
                throw CryptoError.openSSL(.encodingFailed, "could not allocate a memory BIO")
            }
            defer { BIO_free(bio) }
            return try body(bio)
        }
    }

    /// Runs `write` against an empty memory BIO and returns what it wrote as text.
    ///
    /// `write` returns OpenSSL's status (1 or a positive count on success).
    static func writingText(_ what: String, _ write: (OpaquePointer) -> Int32) throws -> String {
        guard let bio = BIO_new(BIO_s_mem()) else {
            throw CryptoError.openSSL(.encodingFailed, "could not allocate a memory BIO for \(what)")
        }
        defer { BIO_free(bio) }
        guard write(bio) > 0 else {
            throw CryptoError.openSSL(.encodingFailed, "could not write \(what)")
        }
        var data: UnsafeMutablePointer<CChar>?
        let count = COpenSSL_BIO_get_mem_data(bio, &data)
        guard count > 0, let data else {
            throw CryptoError.openSSL(.encodingFailed, "\(what) came out empty")
        }
        return data.withMemoryRebound(to: UInt8.self, capacity: count) { bytes in
            String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
        }
    }
}
