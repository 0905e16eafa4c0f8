internal import COpenSSL

/// AES-256-GCM (authenticated encryption) through libcrypto, for secrets kept at rest.
///
/// `seal` draws a fresh 96-bit nonce for every message and returns `nonce ‖ ciphertext ‖ tag`;
/// `open` takes that back and fails, without returning any plaintext, when the key is not the
/// one it was sealed with or a single byte changed (including the `associatedData`, which binds
/// a sealed value to what it belongs to).
public enum AES256GCM {
    /// Size of a key in bytes.
    public static let keyByteCount = 32
    /// Size of the nonce at the start of a sealed value.
    public static let nonceByteCount = 12
    /// Size of the tag at the end of a sealed value.
    public static let tagByteCount = 16

    /// Encrypts `plaintext` under `key` (32 bytes); `associatedData` is authenticated, not stored.
    public static func seal(_ plaintext: [UInt8], key: [UInt8], associatedData: [UInt8] = []) throws(CryptoError) -> [UInt8] {
        try checkKey(key)
        let nonce = SecureRandom.bytes(nonceByteCount)
        var output = [UInt8](repeating: 0, count: plaintext.count + tagByteCount)
        try withContext { context throws(CryptoError) in
            guard EVP_EncryptInit_ex(context, EVP_aes_256_gcm(), nil, key, nonce) == 1 else {
                throw .openSSL(.encryptionFailed, "AES-256-GCM: cannot set the key")
            }
            var length: Int32 = 0
            if !associatedData.isEmpty {
                guard associatedData.withNonNullBytes({ EVP_EncryptUpdate(context, nil, &length, $0, Int32($1)) }) == 1 else {
                    throw .openSSL(.encryptionFailed, "AES-256-GCM: associated data")
                }
            }
            let written = output.withUnsafeMutableBufferPointer { buffer -> Int32 in
                var length: Int32 = 0
                let update = plaintext.withNonNullBytes { EVP_EncryptUpdate(context, buffer.baseAddress, &length, $0, Int32($1)) }
                var final: Int32 = 0
                guard update == 1, EVP_EncryptFinal_ex(context, buffer.baseAddress! + Int(length), &final) == 1 else { return -1 }
                return length + final
            }
            guard written == Int32(plaintext.count) else { throw .openSSL(.encryptionFailed, "AES-256-GCM: encryption") }
            let tagged = output.withUnsafeMutableBufferPointer { buffer in
                EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_GET_TAG, Int32(tagByteCount), buffer.baseAddress! + plaintext.count)
            }
            guard tagged == 1 else { throw .openSSL(.encryptionFailed, "AES-256-GCM: tag") }
        }
        return nonce + output
    }

    /// Decrypts a value made by `seal` with the same `key` and `associatedData`; throws
    /// `decryptionFailed` when either differs or the value was altered.
    public static func open(_ sealed: [UInt8], key: [UInt8], associatedData: [UInt8] = []) throws(CryptoError) -> [UInt8] {
        try checkKey(key)
        guard sealed.count >= nonceByteCount + tagByteCount else {
            throw CryptoError(code: .decryptionFailed, context: "a sealed value is at least \(nonceByteCount + tagByteCount) bytes, got \(sealed.count)")
        }
        let nonce = Array(sealed.prefix(nonceByteCount))
        let ciphertext = Array(sealed[nonceByteCount..<(sealed.count - tagByteCount)])
        var tag = Array(sealed.suffix(tagByteCount))
        // One spare byte: an empty secret still gets a buffer with an address.
        var plaintext = [UInt8](repeating: 0, count: ciphertext.count + 1)
        try withContext { context throws(CryptoError) in
            guard EVP_DecryptInit_ex(context, EVP_aes_256_gcm(), nil, key, nonce) == 1 else {
                throw .openSSL(.decryptionFailed, "AES-256-GCM: cannot set the key")
            }
            var length: Int32 = 0
            if !associatedData.isEmpty {
                guard associatedData.withNonNullBytes({ EVP_DecryptUpdate(context, nil, &length, $0, Int32($1)) }) == 1 else {
                    throw .openSSL(.decryptionFailed, "AES-256-GCM: associated data")
                }
            }
            let opened = plaintext.withUnsafeMutableBufferPointer { buffer -> Bool in
                var length: Int32 = 0
                let out = buffer.baseAddress!
                guard ciphertext.withNonNullBytes({ EVP_DecryptUpdate(context, out, &length, $0, Int32($1)) }) == 1,
                      EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_SET_TAG, Int32(tagByteCount), &tag) == 1
                else { return false }
                var final: Int32 = 0
                // The tag is checked here: a wrong key or an altered byte fails.
                return EVP_DecryptFinal_ex(context, out + Int(length), &final) == 1
            }
            guard opened else {
                OpenSSLErrorQueue.clear()
                throw CryptoError(code: .decryptionFailed, context: "AES-256-GCM: the value does not open with this key (a wrong key, or altered)")
            }
        }
        return Array(plaintext.dropLast())
    }

    private static func checkKey(_ key: [UInt8]) throws(CryptoError) {
        guard key.count == keyByteCount else {
            throw CryptoError(code: .invalidArgument, context: "an AES-256 key is \(keyByteCount) bytes, got \(key.count)")
        }
    }

    /// Runs `body` with a new cipher context, freed afterwards.
    private static func withContext(_ body: (OpaquePointer) throws(CryptoError) -> Void) throws(CryptoError) {
        guard let context = EVP_CIPHER_CTX_new() else { throw .openSSL(.encryptionFailed, "cannot allocate a cipher context") }
        defer { EVP_CIPHER_CTX_free(context) }
        try body(context)
    }
}
