internal import CCurl

/// Turns a libcurl result into the client's error. Pure, so every mapping is tested without I/O.
enum CurlErrorMapping {
    /// The error for a transfer that ended with `code`.
    /// - Parameters:
    ///   - detail: libcurl's error buffer text (never contains request headers).
    ///   - reachedTransfer: whether curl got as far as sending the request; a failure before
    ///     that point means the server cannot have acted on it.
    ///   - responseTooLarge: whether our write callback refused the body.
    static func error(code: CURLcode, detail: String, reachedTransfer: Bool, responseTooLarge: Bool) -> APNsClientError {
        let text = detail.isEmpty ? String(cString: curl_easy_strerror(code)) : detail
        switch code {
        case CURLE_OPERATION_TIMEDOUT:
            return APNsClientError(.timeout, "no answer before the deadline: \(text)", neverProcessed: !reachedTransfer)
        case CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_CONNECT, CURLE_COULDNT_RESOLVE_PROXY, CURLE_NO_CONNECTION_AVAILABLE:
            return APNsClientError(.connectionFailed, "could not connect: \(text)", neverProcessed: true)
        case CURLE_SSL_CONNECT_ERROR, CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CACERT_BADFILE, CURLE_SSL_CERTPROBLEM,
             CURLE_SSL_CIPHER, CURLE_SSL_ISSUER_ERROR, CURLE_SSL_PINNEDPUBKEYNOTMATCH, CURLE_SSL_CRL_BADFILE,
             CURLE_SSL_INVALIDCERTSTATUS, CURLE_SSL_CLIENTCERT, CURLE_SSL_ENGINE_INITFAILED:
            return APNsClientError(.tlsFailure, "TLS failed: \(text)", neverProcessed: !reachedTransfer)
        case CURLE_SEND_ERROR, CURLE_RECV_ERROR, CURLE_HTTP2, CURLE_HTTP2_STREAM, CURLE_GOT_NOTHING, CURLE_PARTIAL_FILE:
            return APNsClientError(.connectionLost, "connection lost: \(text)", neverProcessed: !reachedTransfer)
        case CURLE_WRITE_ERROR where responseTooLarge:
            return APNsClientError(.invalidResponse, "the response body is larger than the client accepts")
        case CURLE_WEIRD_SERVER_REPLY, CURLE_BAD_CONTENT_ENCODING, CURLE_UNSUPPORTED_PROTOCOL:
            return APNsClientError(.invalidResponse, "unusable answer: \(text)")
        case CURLE_URL_MALFORMAT:
            return APNsClientError(.invalidRequest, "malformed URL: \(text)", neverProcessed: true)
        default:
            return APNsClientError(.transport, "libcurl error \(code.rawValue): \(text)", neverProcessed: !reachedTransfer)
        }
    }
}
