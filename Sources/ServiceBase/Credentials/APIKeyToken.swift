import ScorecastCrypto

/// A feed API key as the feed sends it: `sck_<prefix>_<secret>`.
///
/// The prefix (12 lowercase hex digits) is stored in clear and finds the key's row; the secret
/// (64 lowercase hex digits, 256 random bits) is never stored: only the SHA-256 of the whole
/// token is, and a presented token is checked by hashing it and comparing the hashes in
/// constant time. `description` never shows the secret.
package struct APIKeyToken: Sendable, Hashable, CustomStringConvertible {
    /// The text before the prefix.
    package static let scheme = "sck"
    /// Hex digits in a prefix.
    package static let prefixLength = 12
    /// Hex digits in a secret.
    package static let secretLength = 64

    /// The public part, the lookup key of `api_keys.prefix`.
    package let prefix: String
    /// The whole token, `sck_<prefix>_<secret>`: shown once, then only its hash is kept.
    package let text: String

    /// A new random token.
    package static func generate() -> APIKeyToken {
        let prefix = Hex.encode(SecureRandom.bytes(prefixLength / 2))
        let secret = Hex.encode(SecureRandom.bytes(secretLength / 2))
        return APIKeyToken(prefix: prefix, text: "\(scheme)_\(prefix)_\(secret)")
    }

    private init(prefix: String, text: String) {
        self.prefix = prefix
        self.text = text
    }

    /// Reads a presented token; `nil` unless it has exactly the shape `generate` makes.
    package init?(parsing text: some StringProtocol) {
        let parts = text.split(separator: "_", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0] == Self.scheme,
              parts[1].utf8.count == Self.prefixLength, Self.isLowerHex(parts[1]),
              parts[2].utf8.count == Self.secretLength, Self.isLowerHex(parts[2])
        else { return nil }
        self.init(prefix: String(parts[1]), text: String(text))
    }

    /// SHA-256 of the whole token: what `api_keys.secret_hash` holds.
    package var hash: [UInt8] { SHA256.hash(Array(text.utf8)) }

    /// Whether this token hashes to `storedHash`, compared in constant time.
    package func matches(storedHash: [UInt8]) -> Bool {
        ConstantTime.equals(hash, storedHash)
    }

    /// `sck_<prefix>_…`: safe to log.
    package var description: String { "\(Self.scheme)_\(prefix)_…" }

    private static func isLowerHex(_ text: some StringProtocol) -> Bool {
        text.utf8.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains($0) }
    }
}

/// The secret a feed signs requests with when its key requires signatures: `scs_<64 hex>`.
///
/// Unlike the API key it must be kept in clear (`api_keys.hmac_secret`): the server recomputes
/// every signature with it. The HMAC key is the UTF-8 text of the whole secret.
package struct SigningSecret: Sendable, Hashable, CustomStringConvertible {
    /// The text before the hex digits.
    package static let scheme = "scs"

    /// The whole secret.
    package let text: String

    /// A new random secret (256 bits).
    package static func generate() -> SigningSecret {
        SigningSecret(text: "\(scheme)_" + Hex.encode(SecureRandom.bytes(32)))
    }

    /// Wraps a stored or configured secret.
    package init(text: String) { self.text = text }

    /// The HMAC-SHA256 key.
    package var keyBytes: [UInt8] { Array(text.utf8) }

    /// Never shows the secret.
    package var description: String { "\(Self.scheme)_…" }
}
