internal import COpenSSL

/// Owns one `EVP_PKEY` and frees it in `deinit`.
///
/// `@unchecked Sendable`: the key is never mutated after `init`, and OpenSSL 3 supports using
/// one `EVP_PKEY` from several threads at once for signing and verifying as long as each
/// operation has its own `EVP_MD_CTX` (which `sign`/`verify` create per call).
final class EVPKey: @unchecked Sendable {
    let pointer: OpaquePointer

    /// Takes ownership of `pointer`.
    init(taking pointer: OpaquePointer) {
        self.pointer = pointer
    }

    deinit {
        EVP_PKEY_free(pointer)
    }

    /// Throws `.unsupportedKey` unless this is an EC key on P-256; `source` names the input.
    func requireP256(source: String) throws {
        guard EVP_PKEY_get_base_id(pointer) == EVP_PKEY_EC else {
            let name = EVP_PKEY_get0_type_name(pointer).map { String(cString: $0) } ?? "unknown"
            throw CryptoError(code: .unsupportedKey, context: "\(source) holds a key of type \(name); expected an EC P-256 (prime256v1) key")
        }
        var name = [CChar](repeating: 0, count: 64)
        var length = 0
        guard EVP_PKEY_get_group_name(pointer, &name, name.count, &length) == 1 else {
            throw CryptoError.openSSL(.unsupportedKey, "\(source) holds an EC key without a named curve; expected P-256 (prime256v1)")
        }
        let curve = String(decoding: name.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        guard curve == "prime256v1" || curve == "P-256" else {
            throw CryptoError(code: .unsupportedKey, context: "\(source) holds an EC key on curve \(curve); expected P-256 (prime256v1)")
        }
    }

    /// The DER ECDSA signature of SHA-256(`message`).
    func signDER(_ message: [UInt8]) throws -> [UInt8] {
        OpenSSLErrorQueue.clear()
        guard let context = EVP_MD_CTX_new() else {
            throw CryptoError.openSSL(.signingFailed, "could not allocate a digest context")
        }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestSignInit(context, nil, EVP_sha256(), nil, pointer) == 1 else {
            throw CryptoError.openSSL(.signingFailed, "could not start an ES256 signature")
        }
        return try message.withUnsafeBufferPointer { input in
            var length = 0
            // First call: the maximum DER size (72 bytes for P-256).
            guard EVP_DigestSign(context, nil, &length, input.baseAddress, input.count) == 1, length > 0 else {
                throw CryptoError.openSSL(.signingFailed, "could not size an ES256 signature")
            }
            var signature = [UInt8](repeating: 0, count: length)
            guard EVP_DigestSign(context, &signature, &length, input.baseAddress, input.count) == 1 else {
                throw CryptoError.openSSL(.signingFailed, "could not compute an ES256 signature")
            }
            return Array(signature.prefix(length))
        }
    }

    /// Whether `derSignature` is a valid ECDSA signature of SHA-256(`message`) under this key.
    func verifyDER(_ derSignature: [UInt8], message: [UInt8]) -> Bool {
        OpenSSLErrorQueue.clear()
        // A failed verification leaves entries in the queue; they carry no meaning for callers.
        defer { OpenSSLErrorQueue.clear() }
        guard let context = EVP_MD_CTX_new() else { return false }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestVerifyInit(context, nil, EVP_sha256(), nil, pointer) == 1 else { return false }
        return derSignature.withUnsafeBufferPointer { signature in
            message.withUnsafeBufferPointer { input in
                EVP_DigestVerify(context, signature.baseAddress, signature.count, input.baseAddress, input.count) == 1
            }
        }
    }

    /// The DER SubjectPublicKeyInfo of this key (for a private key: of its public half).
    func subjectPublicKeyInfoDER() throws -> [UInt8] {
        let length = i2d_PUBKEY(pointer, nil)
        guard length > 0 else {
            throw CryptoError.openSSL(.encodingFailed, "could not encode the public key")
        }
        var der = [UInt8](repeating: 0, count: Int(length))
        let written = der.withUnsafeMutableBufferPointer { buffer -> Int32 in
            var cursor = buffer.baseAddress
            return i2d_PUBKEY(pointer, &cursor)
        }
        guard written == length else {
            throw CryptoError.openSSL(.encodingFailed, "could not encode the public key")
        }
        return der
    }

    /// A key holding only the public half described by a DER SubjectPublicKeyInfo.
    static func publicKey(fromSubjectPublicKeyInfo der: [UInt8], source: String) throws -> EVPKey {
        let key = der.withUnsafeBufferPointer { buffer -> OpaquePointer? in
            var cursor = buffer.baseAddress
            return d2i_PUBKEY(nil, &cursor, buffer.count)
        }
        guard let key else {
            throw CryptoError.openSSL(.invalidKey, "\(source) is not a valid public key")
        }
        return EVPKey(taking: key)
    }
}
