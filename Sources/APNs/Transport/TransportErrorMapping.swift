internal import CCurl

/// Turns what libcurl reports into the client's error. Pure: every mapping is tested without
/// I/O. Messages name the endpoint and the cause, never a header (so never a token): libcurl's
/// error buffer describes connections and TLS, not requests.
enum TransportErrorMapping {
    /// The error for a transfer to `endpoint` that libcurl ended with `code`.
    /// - Parameters:
    ///   - detail: libcurl's error buffer text (empty when it wrote none).
    ///   - reachedTransfer: whether libcurl got as far as sending the request; a failure
    ///     before that point means the server cannot have acted on it.
    ///   - responseBytes: header and body bytes of a response received before the failure
    ///     (see `neverProcessed`).
    ///   - responseTooLarge: whether our write callback refused the body.
    ///   - limit: the body cap, for the message.
    ///   - proxyStatus: the proxy's answer to `CONNECT` (0 without a proxy).
    static func error(_ endpoint: APNsEndpoint, code: CURLcode, detail: String, reachedTransfer: Bool, responseBytes: Int,
                      responseTooLarge: Bool = false, limit: Int = 0, proxyStatus: Int = 0) -> APNsClientError {
        let text = detail.isEmpty ? String(cString: curl_easy_strerror(code)) : detail
        let unprocessed = neverProcessed(code: code, detail: detail, reachedTransfer: reachedTransfer, responseBytes: responseBytes)
        if proxyStatus >= 300 {
            return APNsClientError(.connectionFailed, "the proxy refused the tunnel to \(endpoint) (HTTP \(proxyStatus)"
                + (proxyStatus == 401 || proxyStatus == 407 ? ": check the proxy credentials)" : ")"), neverProcessed: true)
        }
        switch code {
        case CURLE_OPERATION_TIMEDOUT:
            return APNsClientError(.timeout, "no answer from \(endpoint) before the deadline: \(text)", neverProcessed: unprocessed)
        case CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_CONNECT, CURLE_COULDNT_RESOLVE_PROXY, CURLE_NO_CONNECTION_AVAILABLE:
            return APNsClientError(.connectionFailed, "could not connect to \(endpoint): \(text)", neverProcessed: true)
        case CURLE_PEER_FAILED_VERIFICATION:
            return APNsClientError(.tlsFailure, "TLS with \(endpoint) failed: certificate not trusted: \(text)", neverProcessed: true)
        case CURLE_SSL_CONNECT_ERROR, CURLE_SSL_CACERT_BADFILE, CURLE_SSL_CERTPROBLEM, CURLE_SSL_CIPHER, CURLE_SSL_ISSUER_ERROR,
             CURLE_SSL_PINNEDPUBKEYNOTMATCH, CURLE_SSL_CRL_BADFILE, CURLE_SSL_INVALIDCERTSTATUS, CURLE_SSL_CLIENTCERT,
             CURLE_SSL_ENGINE_INITFAILED:
            return APNsClientError(.tlsFailure, "TLS with \(endpoint) failed: \(text)", neverProcessed: true)
        case CURLE_SEND_ERROR, CURLE_RECV_ERROR, CURLE_HTTP2, CURLE_HTTP2_STREAM, CURLE_GOT_NOTHING, CURLE_PARTIAL_FILE:
            return APNsClientError(.connectionLost, "connection to \(endpoint) lost: \(text)", neverProcessed: unprocessed)
        case CURLE_WRITE_ERROR where responseTooLarge:
            return responseTooLargeError(limit: limit)
        case CURLE_WEIRD_SERVER_REPLY, CURLE_BAD_CONTENT_ENCODING, CURLE_UNSUPPORTED_PROTOCOL:
            return APNsClientError(.invalidResponse, "unusable answer from \(endpoint): \(text)")
        case CURLE_URL_MALFORMAT:
            return APNsClientError(.invalidRequest, "malformed URL for \(endpoint): \(text)", neverProcessed: true)
        default:
            return APNsClientError(.transport, "libcurl error \(code.rawValue) with \(endpoint): \(text)", neverProcessed: unprocessed)
        }
    }

    /// ALPN did not select `h2`.
    static func noHTTP2(_ endpoint: APNsEndpoint) -> APNsClientError {
        APNsClientError(.invalidResponse, "\(endpoint) answered without HTTP/2 (ALPN did not select h2); APNs speaks only HTTP/2",
                        neverProcessed: true)
    }

    /// The response body passed the size cap.
    static func responseTooLargeError(limit: Int) -> APNsClientError {
        APNsClientError(.invalidResponse, "the response body is larger than the client accepts (\(limit) bytes)")
    }

    /// The deadline passed while the request waited for a free stream.
    static func deadlineWhileQueued() -> APNsClientError {
        APNsClientError(.timeout, "the deadline passed before a stream was free", neverProcessed: true)
    }

    /// libcurl refused to take the request (an option or `curl_multi_add_handle` failed).
    static func notStarted(_ what: String) -> APNsClientError {
        APNsClientError(.transport, "libcurl refused the request: \(what)", neverProcessed: true)
    }

    /// The caller cancelled; `onStream` when the request had been handed to libcurl.
    static func cancelled(onStream: Bool) -> APNsClientError {
        APNsClientError(.cancelled, "the request was cancelled", neverProcessed: !onStream)
    }

    /// The client was shut down; `onStream` as for `cancelled`.
    static func shutdown(onStream: Bool) -> APNsClientError {
        APNsClientError(.shutdown, "the APNs client was shut down", neverProcessed: !onStream)
    }
}
