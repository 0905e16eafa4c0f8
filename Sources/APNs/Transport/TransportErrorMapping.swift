import Foundation

/// Turns what the socket, OpenSSL and nghttp2 report into the client's error. Pure: every
/// mapping is tested without I/O. Messages name the endpoint and the cause, never a header
/// (so never a token).
enum TransportErrorMapping {
    /// HTTP/2 error codes (RFC 9113 §7) by name, for messages.
    static func http2ErrorName(_ code: UInt32) -> String {
        switch code {
        case 0x0: "NO_ERROR"
        case 0x1: "PROTOCOL_ERROR"
        case 0x2: "INTERNAL_ERROR"
        case 0x3: "FLOW_CONTROL_ERROR"
        case 0x4: "SETTINGS_TIMEOUT"
        case 0x5: "STREAM_CLOSED"
        case 0x6: "FRAME_SIZE_ERROR"
        case 0x7: "REFUSED_STREAM"
        case 0x8: "CANCEL"
        case 0x9: "COMPRESSION_ERROR"
        case 0xa: "CONNECT_ERROR"
        case 0xb: "ENHANCE_YOUR_CALM"
        case 0xc: "INADEQUATE_SECURITY"
        case 0xd: "HTTP_1_1_REQUIRED"
        default: "error \(code)"
        }
    }

    static let refusedStream: UInt32 = 0x7

    /// The host name could not be resolved (`getaddrinfo` failed with `detail`).
    static func resolutionFailed(_ endpoint: APNsEndpoint, detail: String) -> APNsClientError {
        APNsClientError(.connectionFailed, "could not resolve \(endpoint.host): \(detail)", neverProcessed: true)
    }

    /// `connect(2)` failed with `errno` on every address.
    static func connectFailed(_ endpoint: APNsEndpoint, errno code: Int32) -> APNsClientError {
        APNsClientError(.connectionFailed, "could not connect to \(endpoint): \(describe(errno: code))", neverProcessed: true)
    }

    /// TCP and TLS did not complete within the connect timeout.
    static func connectTimedOut(_ endpoint: APNsEndpoint, after timeout: Duration) -> APNsClientError {
        APNsClientError(.timeout, "no connection to \(endpoint) within the connect timeout (\(timeout))", neverProcessed: true)
    }

    /// The TLS handshake failed. `verification` is OpenSSL's verify result text when the
    /// certificate was refused, `detail` its error queue.
    static func tlsFailed(_ endpoint: APNsEndpoint, verification: String?, detail: String) -> APNsClientError {
        if let verification {
            return APNsClientError(.tlsFailure, "TLS with \(endpoint) failed: certificate not trusted: \(verification)", neverProcessed: true)
        }
        return APNsClientError(.tlsFailure, "TLS with \(endpoint) failed: \(detail)", neverProcessed: true)
    }

    /// The CA file or trust store could not be loaded.
    static func trustStoreFailed(_ endpoint: APNsEndpoint, detail: String) -> APNsClientError {
        APNsClientError(.tlsFailure, "TLS setup for \(endpoint) failed: \(detail)", neverProcessed: true)
    }

    /// ALPN did not select `h2`.
    static func noHTTP2(_ endpoint: APNsEndpoint) -> APNsClientError {
        APNsClientError(.invalidResponse, "\(endpoint) answered without HTTP/2 (ALPN did not select h2); APNs speaks only HTTP/2",
                        neverProcessed: true)
    }

    /// The stream closed with `code` before a complete response arrived.
    static func streamClosed(_ endpoint: APNsEndpoint, code: UInt32) -> APNsClientError {
        if code == refusedStream {
            return APNsClientError(.connectionLost, "\(endpoint) refused the stream (REFUSED_STREAM)", neverProcessed: true)
        }
        return APNsClientError(.connectionLost, "\(endpoint) reset the stream (\(http2ErrorName(code)))")
    }

    /// The stream was above the last stream id of the server's GOAWAY.
    static func goAwayRefused(_ endpoint: APNsEndpoint) -> APNsClientError {
        APNsClientError(.connectionLost, "\(endpoint) sent GOAWAY before processing the request", neverProcessed: true)
    }

    /// The connection ended while the request was on it. `sent`: whether its HEADERS had
    /// been written (if not, the server cannot have acted on it).
    static func connectionClosed(_ endpoint: APNsEndpoint, reason: String, sent: Bool) -> APNsClientError {
        APNsClientError(.connectionLost, "connection to \(endpoint) lost: \(reason)", neverProcessed: !sent)
    }

    /// The request could not be submitted to the HTTP/2 session (`detail`: nghttp2's reason).
    static func submitFailed(_ endpoint: APNsEndpoint, detail: String) -> APNsClientError {
        APNsClientError(.connectionLost, "could not start a stream to \(endpoint): \(detail)", neverProcessed: true)
    }

    /// The response body passed the size cap.
    static func responseTooLarge(limit: Int) -> APNsClientError {
        APNsClientError(.invalidResponse, "the response body is larger than the client accepts (\(limit) bytes)")
    }

    /// The response ended without a usable `:status`.
    static func missingStatus(_ endpoint: APNsEndpoint) -> APNsClientError {
        APNsClientError(.invalidResponse, "\(endpoint) answered without a valid :status")
    }

    /// The deadline passed while the request waited for a connection or a free stream.
    static func deadlineWhileQueued() -> APNsClientError {
        APNsClientError(.timeout, "the deadline passed before a stream was free", neverProcessed: true)
    }

    /// The deadline passed while the request was on a stream.
    static func deadlineOnStream(_ endpoint: APNsEndpoint, sent: Bool) -> APNsClientError {
        APNsClientError(.timeout, "no answer from \(endpoint) before the deadline", neverProcessed: !sent)
    }

    /// The caller cancelled; `onStream` when the request had been handed to a connection.
    static func cancelled(onStream: Bool) -> APNsClientError {
        APNsClientError(.cancelled, "the request was cancelled", neverProcessed: !onStream)
    }

    /// The client was shut down; `onStream` as for `cancelled`.
    static func shutdown(onStream: Bool) -> APNsClientError {
        APNsClientError(.shutdown, "the APNs client was shut down", neverProcessed: !onStream)
    }

    /// `strerror` text with the symbolic number, e.g. "Connection refused (errno 111)".
    static func describe(errno code: Int32) -> String {
        "\(String(cString: strerror(code))) (errno \(code))"
    }
}
