internal import COpenSSL

/// The one error type of the Crypto module: what failed (`code`), where (`context`, e.g. a file
/// path), and the messages OpenSSL queued while it failed.
///
/// Descriptions never contain key material, tokens or other secrets: contexts name files and
/// shapes ("expected 3 segments"), and OpenSSL's messages only name its routines and reasons.
public struct CryptoError: Error, CustomStringConvertible, Sendable, Equatable {
    /// What kind of failure this is.
    public enum Code: String, Sendable, Equatable {
        /// A file could not be opened or read (missing, permissions, a folder, too large).
        case unreadableFile
        /// The input is not PEM text (empty, binary, or without a `-----BEGIN` line).
        case notPEM
        /// The input is a key, but not an EC P-256 one (RSA, another curve, a public key where a
        /// private key is needed…).
        case unsupportedKey
        /// The key is encrypted with a passphrase; only unencrypted keys are supported.
        case encryptedKey
        /// The PEM block is of the right kind but OpenSSL could not decode it.
        case invalidKey
        /// A compact JWS is malformed (segment count, base64url, empty header).
        case malformedToken
        /// An argument is out of range or ill-formed (a bad SAN, a zero validity…).
        case invalidArgument
        /// Key generation failed inside OpenSSL.
        case keyGenerationFailed
        /// Signing failed inside OpenSSL.
        case signingFailed
        /// Building or signing an X.509 certificate failed inside OpenSSL.
        case certificateFailed
        /// Encoding a key or certificate (PEM/DER) failed inside OpenSSL.
        case encodingFailed
        /// Encrypting failed inside OpenSSL.
        case encryptionFailed
        /// A sealed value did not open: a wrong key, or the value was altered.
        case decryptionFailed
    }

    /// What kind of failure this is.
    public let code: Code
    /// Where and what: names a file or the shape of the input, never its secret content.
    public let context: String
    /// OpenSSL's error queue at the time of the failure, oldest first (may be empty).
    public let openSSLErrors: [String]

    /// Creates an error; `openSSLErrors` is normally filled by draining OpenSSL's queue.
    public init(code: Code, context: String, openSSLErrors: [String] = []) {
        self.code = code
        self.context = context
        self.openSSLErrors = openSSLErrors
    }

    /// `"<code>: <context>"`, followed by OpenSSL's messages when there are any.
    public var description: String {
        var text = "\(code.rawValue): \(context)"
        if !openSSLErrors.isEmpty {
            text += " (openssl: \(openSSLErrors.joined(separator: "; ")))"
        }
        return text
    }

    /// An error carrying, and clearing, this thread's OpenSSL error queue.
    static func openSSL(_ code: Code, _ context: String) -> CryptoError {
        CryptoError(code: code, context: context, openSSLErrors: OpenSSLErrorQueue.drain())
    }
}

/// OpenSSL keeps failures in a per-thread queue; every failing call path drains it (into a
/// `CryptoError`, or into the message of a TLS failure in the APNs client and the simulator) so
/// a stale entry never leaks into an unrelated later error.
public enum OpenSSLErrorQueue {
    /// Removes every queued error and returns their messages ("error:…:routines::reason").
    public static func drain() -> [String] {
        var messages: [String] = []
        while true {
            let code = ERR_get_error()
            if code == 0 { break }
            var buffer = [CChar](repeating: 0, count: 256)
            ERR_error_string_n(code, &buffer, buffer.count)
            messages.append(String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
            if messages.count >= 16 {
                ERR_clear_error()
                break
            }
        }
        return messages
    }

    /// The queued errors as one line (the queue is emptied), or "unknown error".
    public static func message() -> String {
        let messages = drain()
        return messages.isEmpty ? "unknown error" : messages.joined(separator: "; ")
    }

    /// Forgets queued errors left by earlier, unrelated calls on this thread.
    static func clear() {
        ERR_clear_error()
    }
}
