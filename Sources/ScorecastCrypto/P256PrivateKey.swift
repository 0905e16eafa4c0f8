internal import COpenSSL

/// An ECDSA private key on NIST P-256, as used for APNs provider tokens (ES256).
///
/// Loads Apple's `.p8` files (PKCS#8 `PRIVATE KEY` PEM) and SEC1 `EC PRIVATE KEY` PEM. The
/// key is immutable and may be used from many threads at once. Its `description`, debug
/// description and mirror never reveal the key.
public struct P256PrivateKey: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    private let key: EVPKey

    /// The OpenSSL key, for other types of this module (certificate signing).
    var evpKey: EVPKey { key }

    /// The public half of this key.
    public let publicKey: P256PublicKey

    /// Loads an unencrypted PEM private key: PKCS#8 (`-----BEGIN PRIVATE KEY-----`, Apple's `.p8`)
    /// or SEC1 (`-----BEGIN EC PRIVATE KEY-----`).
    ///
    /// - Throws: `CryptoError` with `.notPEM`, `.encryptedKey`, `.unsupportedKey` (RSA, another
    ///   curve, a public key) or `.invalidKey`; the message never contains key material.
    public init(pem: String) throws {
        try self.init(pemBytes: Array(pem.utf8), source: "PEM text")
    }

    /// Loads an unencrypted PEM private key from a file (see `init(pem:)`).
    ///
    /// - Throws: `CryptoError` naming `path` and what is wrong: unreadable (missing, permissions),
    ///   empty, not PEM, encrypted, or not an EC P-256 private key.
    public init(contentsOfFile path: String) throws {
        let bytes = try KeyFile.read(path)
        try self.init(pemBytes: bytes, source: "key file '\(path)'")
    }

    /// A new random P-256 key.
    public static func generate() throws -> P256PrivateKey {
        OpenSSLErrorQueue.clear()
        guard let pointer = COpenSSL_EVP_EC_gen("P-256") else {
            throw CryptoError.openSSL(.keyGenerationFailed, "could not generate a P-256 key")
        }
        return try P256PrivateKey(key: EVPKey(taking: pointer))
    }

    private init(pemBytes: [UInt8], source: String) throws {
        let pem = try PEMText(bytes: pemBytes, source: source)
        try P256PrivateKey.checkLabels(pem.labels, source: source)
        OpenSSLErrorQueue.clear()
        let pointer = try MemoryBIO.reading(pem.bytes) { bio in
            // A callback that refuses every passphrase: without it OpenSSL would prompt on the
            // terminal for an encrypted key.
            PEM_read_bio_PrivateKey(bio, nil, { _, _, _, _ in -1 }, nil)
        }
        guard let pointer else {
            throw CryptoError.openSSL(.invalidKey, "\(source) has a private key PEM block that could not be decoded")
        }
        let key = EVPKey(taking: pointer)
        try key.requireP256(source: source)
        try self.init(key: key)
    }

    private init(key: EVPKey) throws {
        self.key = key
        // Encoded once here so the property cannot fail later.
        self.pkcs8PEM = try MemoryBIO.writingText("the private key") { bio in
            PEM_write_bio_PKCS8PrivateKey(bio, key.pointer, nil, nil, 0, nil, nil)
        }
        let spki = try key.subjectPublicKeyInfoDER()
        self.publicKey = try P256PublicKey(subjectPublicKeyInfo: spki, source: "the derived public key")
    }

    /// Rejects PEM that holds something other than an unencrypted private key, with a message
    /// saying what it holds.
    private static func checkLabels(_ labels: [String], source: String) throws {
        if labels.contains("PRIVATE KEY") || labels.contains("EC PRIVATE KEY") { return }
        if labels.contains("ENCRYPTED PRIVATE KEY") {
            throw CryptoError(code: .encryptedKey, context: "\(source) holds an encrypted private key; provide an unencrypted PKCS#8 key")
        }
        let found = labels.map { "'\($0)'" }.joined(separator: ", ")
        if labels.contains(where: { $0.hasSuffix("PRIVATE KEY") }) {
            throw CryptoError(code: .unsupportedKey, context: "\(source) holds a \(found) block; expected an EC P-256 private key")
        }
        throw CryptoError(code: .unsupportedKey, context: "\(source) holds \(found), not a private key; expected an EC P-256 private key")
    }

    /// This key as unencrypted PKCS#8 PEM (`-----BEGIN PRIVATE KEY-----`), the `.p8` format.
    ///
    /// This is the secret itself: write it only to files with restricted permissions.
    public let pkcs8PEM: String

    /// Signs SHA-256(`message`) with ECDSA and returns the 64-byte raw R‖S signature (the JOSE
    /// ES256 form, not DER). Each call uses fresh randomness, so signatures differ between calls.
    public func signES256(_ message: [UInt8]) throws -> [UInt8] {
        try ECDSASignature.raw(fromDER: key.signDER(message))
    }

    /// `"P256PrivateKey(redacted)"`: never the key.
    public var description: String { "P256PrivateKey(redacted)" }

    /// `"P256PrivateKey(redacted)"`: never the key.
    public var debugDescription: String { description }

    /// A mirror without children, so `dump` and reflection cannot reach the key.
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
}
