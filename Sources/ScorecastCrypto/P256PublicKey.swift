internal import COpenSSL

/// An ECDSA public key on NIST P-256, for verifying ES256 signatures.
///
/// Two keys are equal when their SubjectPublicKeyInfo encodings are equal.
public struct P256PublicKey: Sendable, Hashable, CustomStringConvertible {
    private let key: EVPKey

    /// The DER SubjectPublicKeyInfo of this key.
    public let derRepresentation: [UInt8]

    /// Loads a SubjectPublicKeyInfo PEM (`-----BEGIN PUBLIC KEY-----`) holding a P-256 key.
    ///
    /// - Throws: `CryptoError` with `.notPEM`, `.unsupportedKey` (another key type or curve, or a
    ///   private key) or `.invalidKey`.
    public init(pem: String) throws {
        let source = "PEM text"
        let text = try PEMText(bytes: Array(pem.utf8), source: source)
        guard text.labels.contains("PUBLIC KEY") else {
            let found = text.labels.map { "'\($0)'" }.joined(separator: ", ")
            throw CryptoError(code: .unsupportedKey, context: "\(source) holds \(found); expected a 'PUBLIC KEY' (SubjectPublicKeyInfo) block")
        }
        OpenSSLErrorQueue.clear()
        let pointer = try MemoryBIO.reading(text.bytes) { bio in
            PEM_read_bio_PUBKEY(bio, nil, nil, nil)
        }
        guard let pointer else {
            throw CryptoError.openSSL(.invalidKey, "\(source) has a PUBLIC KEY block that could not be decoded")
        }
        let key = EVPKey(taking: pointer)
        try key.requireP256(source: source)
        self.key = key
        self.derRepresentation = try key.subjectPublicKeyInfoDER()
    }

    /// A key from a DER SubjectPublicKeyInfo; `source` names the input in errors.
    init(subjectPublicKeyInfo der: [UInt8], source: String) throws {
        OpenSSLErrorQueue.clear()
        let key = try EVPKey.publicKey(fromSubjectPublicKeyInfo: der, source: source)
        try key.requireP256(source: source)
        self.key = key
        self.derRepresentation = der
    }

    /// This key as SubjectPublicKeyInfo PEM (`-----BEGIN PUBLIC KEY-----`).
    public var pem: String {
        var text = "-----BEGIN PUBLIC KEY-----\n"
        let base64 = Base64.encode(derRepresentation)
        var index = base64.startIndex
        while index < base64.endIndex {
            let end = base64.index(index, offsetBy: 64, limitedBy: base64.endIndex) ?? base64.endIndex
            text += base64[index..<end] + "\n"
            index = end
        }
        return text + "-----END PUBLIC KEY-----\n"
    }

    /// Whether `signature` (raw 64-byte R‖S, the JOSE ES256 form) is a valid ECDSA signature of
    /// SHA-256(`message`) under this key. Any other length, or a DER signature, gives `false`.
    public func verifyES256(signature: [UInt8], message: [UInt8]) -> Bool {
        guard let der = ECDSASignature.der(fromRaw: signature) else { return false }
        return key.verifyDER(der, message: message)
    }

    /// `"P256PublicKey(sha256:<first 8 bytes of SHA-256 of the DER, hex>)"`.
    public var description: String {
        "P256PublicKey(sha256:\(Hex.encode(Array(SHA256.hash(derRepresentation).prefix(8)))))"
    }

    /// Compares the DER encodings.
    public static func == (lhs: P256PublicKey, rhs: P256PublicKey) -> Bool {
        lhs.derRepresentation == rhs.derRepresentation
    }

    /// Hashes the DER encoding.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(derRepresentation)
    }
}
