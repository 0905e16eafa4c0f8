import Foundation

/// The keys that seal secrets kept at rest (AES-256-GCM): the first seals, every one opens, so
/// that a key can be replaced while values sealed with the old one are still read.
///
/// A sealed value is `key id ‖ nonce ‖ ciphertext ‖ tag`; the key id (the first 8 bytes of the
/// key's SHA-256) picks the key that opens it and names it in errors, never the key itself.
public struct SealingKeyring: Sendable {
    /// One key and its id.
    struct Key: Sendable {
        let id: [UInt8]
        let bytes: [UInt8]
    }

    /// Bytes of key id at the start of a sealed value.
    public static let keyIDByteCount = 8

    let keys: [Key]

    /// Keys given as 64 hexadecimal characters each (`openssl rand -hex 32`), the current one
    /// first, previous ones after it.
    public init(hexKeys: [String]) throws(CryptoError) {
        guard !hexKeys.isEmpty else { throw CryptoError(code: .invalidArgument, context: "no key given") }
        var keys: [Key] = []
        for (index, text) in hexKeys.enumerated() {
            guard let bytes = Hex.decode(text), bytes.count == AES256GCM.keyByteCount else {
                throw CryptoError(
                    code: .invalidArgument,
                    context: "key \(index + 1) is not \(AES256GCM.keyByteCount * 2) hexadecimal characters (`openssl rand -hex 32` makes one)")
            }
            keys.append(Key(id: Array(SHA256.hash(bytes).prefix(Self.keyIDByteCount)), bytes: bytes))
        }
        self.keys = keys
    }

    /// Reads the keys from a file: one per line, the current one first; blank lines and lines
    /// starting with `#` are skipped.
    public static func load(file path: String) throws(CryptoError) -> SealingKeyring {
        let content: [UInt8]
        do {
            content = try KeyFile.read(path)
        } catch let error as CryptoError {
            throw error
        } catch {
            throw CryptoError(code: .unreadableFile, context: "key file '\(path)' cannot be read")
        }
        let text = String(decoding: content, as: UTF8.self)
        let lines = text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty && !$0.hasPrefix("#") }
        do {
            return try SealingKeyring(hexKeys: lines)
        } catch {
            throw CryptoError(code: error.code, context: "key file '\(path)': \(error.context)")
        }
    }

    /// The id of the key that seals, in hex (safe to log).
    public var currentKeyID: String { Hex.encode(keys[0].id) }

    /// Seals `plaintext` with the current key; `context` (what the value belongs to) must be
    /// given again to open it, so a sealed value moved to another row does not open.
    public func seal(_ plaintext: [UInt8], context: [UInt8]) throws(CryptoError) -> [UInt8] {
        keys[0].id + (try AES256GCM.seal(plaintext, key: keys[0].bytes, associatedData: context))
    }

    /// Opens a value made by `seal` with any of the keys.
    public func open(_ sealed: [UInt8], context: [UInt8]) throws(CryptoError) -> [UInt8] {
        let id = Array(sealed.prefix(Self.keyIDByteCount))
        guard let key = keys.first(where: { $0.id == id }) else {
            throw CryptoError(
                code: .decryptionFailed,
                context: "sealed with key \(Hex.encode(id)), which is not among the configured keys (\(keys.map { Hex.encode($0.id) }.joined(separator: ", ")))")
        }
        return try AES256GCM.open(Array(sealed.dropFirst(Self.keyIDByteCount)), key: key.bytes, associatedData: context)
    }

    /// Whether `sealed` was sealed with the current key (else it is due to be sealed again).
    public func isSealedWithCurrentKey(_ sealed: [UInt8]) -> Bool {
        Array(sealed.prefix(Self.keyIDByteCount)) == keys[0].id
    }
}
