internal import COpenSSL
import ScorecastCrypto
import Foundation

/// An OpenSSL server context: certificate chain, private key, TLS 1.2+ and ALPN that selects `h2`.
///
/// Shared read-only by every connection of a server once built (OpenSSL allows concurrent
/// `SSL_new` on one context).
final class TLSContext: @unchecked Sendable {
    // @unchecked Sendable: the SSL_CTX is configured in `init` and only read afterwards;
    // OpenSSL documents SSL_CTX as safe to share between threads for SSL_new.

    let context: OpaquePointer

    /// Loads `certificatePath` (PEM chain) and `privateKeyPath` (PEM key) into a new context.
    init(certificatePath: String, privateKeyPath: String) throws(SimulatorError) {
        ERR_clear_error()
        guard let context = SSL_CTX_new(TLS_server_method()) else {
            throw .tls("creating the server context", OpenSSLErrorQueue.message())
        }
        self.context = context
        // Macros in ssl.h (SSL_CTX_set_min_proto_version, SSL_CTX_set_mode) are SSL_CTX_ctrl calls.
        _ = SSL_CTX_ctrl(context, SSL_CTRL_SET_MIN_PROTO_VERSION, Int(TLS1_2_VERSION), nil)
        _ = SSL_CTX_ctrl(context, SSL_CTRL_MODE, Int(SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER), nil)
        // Read ahead into a 64 KiB buffer: one read(2) for many records instead of two per record.
        _ = SSL_CTX_ctrl(context, SSL_CTRL_SET_READ_AHEAD, 1, nil)
        SSL_CTX_set_default_read_buffer_len(context, 64 * 1024)
        // SSL_OP_* are SSL_OP_BIT(n) function-like macros: NO_COMPRESSION (17), CIPHER_SERVER_PREFERENCE (22),
        // NO_RENEGOTIATION (30).
        _ = SSL_CTX_set_options(context, (1 << 17) | (1 << 22) | (1 << 30))
        guard SSL_CTX_use_certificate_chain_file(context, certificatePath) == 1 else {
            throw .tls("loading the certificate \(certificatePath)", OpenSSLErrorQueue.message())
        }
        guard SSL_CTX_use_PrivateKey_file(context, privateKeyPath, SSL_FILETYPE_PEM) == 1 else {
            throw .tls("loading the private key \(privateKeyPath)", OpenSSLErrorQueue.message())
        }
        guard SSL_CTX_check_private_key(context) == 1 else {
            throw .tls("matching the private key to the certificate", OpenSSLErrorQueue.message())
        }
        // APNs speaks HTTP/2 only: ALPN picks "h2" when the client offers it, and the handshake
        // goes on without ALPN otherwise (the HTTP/2 preface check then rejects HTTP/1.1).
        SSL_CTX_set_alpn_select_cb(context, { _, out, outLength, input, inputLength, _ in
            guard let out, let outLength, let input else { return SSL_TLSEXT_ERR_NOACK }
            var index = 0
            let count = Int(inputLength)
            while index < count {
                let length = Int(input[index])
                let start = index + 1
                if length == 2 && start + 2 <= count && input[start] == UInt8(ascii: "h") && input[start + 1] == UInt8(ascii: "2") {
                    out.pointee = input + start
                    outLength.pointee = 2
                    return SSL_TLSEXT_ERR_OK
                }
                index = start + length
            }
            return SSL_TLSEXT_ERR_NOACK
        }, nil)
    }

    deinit { SSL_CTX_free(context) }

    /// A new SSL object for an accepted socket, in server mode.
    func makeSSL(fd: Int32) -> OpaquePointer? {
        guard let ssl = SSL_new(context) else { return nil }
        guard SSL_set_fd(ssl, fd) == 1 else {
            SSL_free(ssl)
            return nil
        }
        SSL_set_accept_state(ssl)
        return ssl
    }
}
