internal import COpenSSL
import Crypto
import Foundation

/// An OpenSSL client context for one trust source: TLS 1.2 or later, peer verification
/// against `caFile` (or the system store), ALPN offering only `h2`.
///
/// Confined to the transport's loop thread (not `Sendable`), like the connections using it.
final class TLSClientContext {
    let raw: OpaquePointer

    /// Builds the context; the error names what could not be loaded.
    init(caFile: String?, endpoint: APNsEndpoint) throws(APNsClientError) {
        ERR_clear_error()
        guard let raw = SSL_CTX_new(TLS_client_method()) else {
            throw TransportErrorMapping.trustStoreFailed(endpoint, detail: "SSL_CTX_new: \(OpenSSLErrorQueue.message())")
        }
        self.raw = raw
        // SSL_CTX_set_min_proto_version and SSL_CTX_set_mode are macros over SSL_CTX_ctrl.
        _ = SSL_CTX_ctrl(raw, SSL_CTRL_SET_MIN_PROTO_VERSION, Int(TLS1_2_VERSION), nil)
        _ = SSL_CTX_ctrl(raw, SSL_CTRL_MODE, Int(SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER), nil)
        // Read ahead: one read(2) brings many records instead of two reads per record.
        _ = SSL_CTX_ctrl(raw, SSL_CTRL_SET_READ_AHEAD, 1, nil)
        SSL_CTX_set_default_read_buffer_len(raw, 64 * 1024)
        // SSL_OP_NO_COMPRESSION (bit 17) and SSL_OP_NO_RENEGOTIATION (bit 30): SSL_OP_BIT macros.
        _ = SSL_CTX_set_options(raw, (1 << 17) | (1 << 30))
        SSL_CTX_set_verify(raw, SSL_VERIFY_PEER, nil)
        if let caFile {
            guard SSL_CTX_load_verify_locations(raw, caFile, nil) == 1 else {
                throw TransportErrorMapping.trustStoreFailed(endpoint, detail: "cannot load CA file \(caFile): \(OpenSSLErrorQueue.message())")
            }
        } else {
            guard SSL_CTX_set_default_verify_paths(raw) == 1 else {
                throw TransportErrorMapping.trustStoreFailed(endpoint, detail: "cannot load the system trust store: \(OpenSSLErrorQueue.message())")
            }
        }
        // ALPN wire format: a length byte, then the protocol name. (Returns 0 on success.)
        let protocols: [UInt8] = [2, UInt8(ascii: "h"), UInt8(ascii: "2")]
        guard SSL_CTX_set_alpn_protos(raw, protocols, UInt32(protocols.count)) == 0 else {
            throw TransportErrorMapping.trustStoreFailed(endpoint, detail: "cannot offer ALPN h2: \(OpenSSLErrorQueue.message())")
        }
    }

    deinit { SSL_CTX_free(raw) }

    /// A client SSL object on `fd` that verifies the certificate names `host` (DNS name or IP
    /// address) and sends it as SNI when it is a name.
    func makeSSL(fd: Int32, host: String) -> OpaquePointer? {
        guard let ssl = SSL_new(raw) else { return nil }
        var ok = SSL_set_fd(ssl, fd) == 1
        if ok {
            if HostName.isIPAddress(host) {
                // An IP literal is checked against the certificate's IP SANs; no SNI for it (RFC 6066 §3).
                ok = X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), host) == 1
            } else {
                ok = SSL_set1_host(ssl, host) == 1 && COpenSSL_SSL_set_tlsext_host_name(ssl, host) == 1
            }
        }
        guard ok else {
            SSL_free(ssl)
            return nil
        }
        SSL_set_connect_state(ssl)
        return ssl
    }
}

/// Host-name helpers shared by TLS and address resolution.
enum HostName {
    /// `host` without the brackets of an IPv6 literal (`[::1]` → `::1`).
    static func bare(_ host: String) -> String {
        host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
    }

    /// Whether `host` is an IPv4 or IPv6 literal rather than a DNS name.
    static func isIPAddress(_ host: String) -> Bool {
        var v4 = in_addr()
        var v6 = in6_addr()
        return inet_pton(AF_INET, host, &v4) == 1 || inet_pton(AF_INET6, host, &v6) == 1
    }
}
