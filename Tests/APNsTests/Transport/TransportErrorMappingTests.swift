import Foundation
import CCurl
import Testing
@testable import APNs

@Suite("transport error mapping")
struct TransportErrorMappingTests {
    private let endpoint = APNsEndpoint(host: "api.push.apple.com", port: 443)

    @Test("each libcurl result becomes the right client error; never processed only when nothing was sent")
    func mapping() {
        let cases: [(CURLcode, Bool, APNsClientError.Code, Bool)] = [
            (CURLE_COULDNT_RESOLVE_HOST, false, .connectionFailed, true),
            (CURLE_COULDNT_CONNECT, false, .connectionFailed, true),
            (CURLE_COULDNT_RESOLVE_PROXY, false, .connectionFailed, true),
            (CURLE_OPERATION_TIMEDOUT, false, .timeout, true),
            (CURLE_OPERATION_TIMEDOUT, true, .timeout, false),
            (CURLE_PEER_FAILED_VERIFICATION, false, .tlsFailure, true),
            (CURLE_SSL_CACERT_BADFILE, false, .tlsFailure, true),
            (CURLE_SSL_CONNECT_ERROR, false, .tlsFailure, true),
            (CURLE_HTTP2_STREAM, true, .connectionLost, false),
            (CURLE_HTTP2_STREAM, false, .connectionLost, true),
            (CURLE_HTTP2, false, .connectionLost, true),
            (CURLE_RECV_ERROR, true, .connectionLost, false),
            (CURLE_SEND_ERROR, false, .connectionLost, true),
            (CURLE_GOT_NOTHING, true, .connectionLost, false),
            (CURLE_WEIRD_SERVER_REPLY, true, .invalidResponse, false),
            (CURLE_URL_MALFORMAT, false, .invalidRequest, true),
            (CURLE_OUT_OF_MEMORY, true, .transport, false),
        ]
        for (code, reached, expected, neverProcessed) in cases {
            let error = TransportErrorMapping.error(endpoint, code: code, detail: "", reachedTransfer: reached, responseBytes: 0)
            #expect(error.code == expected, "\(code.rawValue)")
            #expect(error.neverProcessed == neverProcessed, "\(code.rawValue)")
            #expect(error.message.contains("api.push.apple.com:443"), "\(error.message)")
        }
        let tooLarge = TransportErrorMapping.error(endpoint, code: CURLE_WRITE_ERROR, detail: "", reachedTransfer: true,
                                                   responseBytes: 1200, responseTooLarge: true, limit: 1000)
        #expect(tooLarge.code == .invalidResponse)
        #expect(tooLarge.message.contains("1000 bytes"))
        let refused = TransportErrorMapping.error(endpoint, code: CURLE_RECV_ERROR, detail: "CONNECT tunnel failed, response 407",
                                                  reachedTransfer: false, responseBytes: 0, proxyStatus: 407)
        #expect(refused.code == .connectionFailed && refused.neverProcessed)
        #expect(refused.message == "the proxy refused the tunnel to api.push.apple.com:443 (HTTP 407: check the proxy credentials)")
        let others: [(APNsClientError, APNsClientError.Code, Bool)] = [
            (TransportErrorMapping.noHTTP2(endpoint), .invalidResponse, true),
            (TransportErrorMapping.deadlineWhileQueued(), .timeout, true),
            (TransportErrorMapping.notStarted("x"), .transport, true),
            (TransportErrorMapping.cancelled(onStream: true), .cancelled, false),
            (TransportErrorMapping.cancelled(onStream: false), .cancelled, true),
            (TransportErrorMapping.shutdown(onStream: true), .shutdown, false),
            (TransportErrorMapping.shutdown(onStream: false), .shutdown, true),
        ]
        for (error, code, neverProcessed) in others {
            #expect(error.code == code, "\(error)")
            #expect(error.neverProcessed == neverProcessed, "\(error)")
        }
    }

    @Test("a bare CURLE_HTTP2 with no response byte is a stream refused at GOAWAY (libcurl 7.88): never processed; anything else sent may have been")
    func neverProcessedAfterSending() {
        let framing = String(cString: curl_easy_strerror(CURLE_HTTP2))
        let cases: [(CURLcode, String, Int, Bool)] = [
            // The last stream above a GOAWAY's last stream id: no text, no response.
            (CURLE_HTTP2, "", 0, true),
            (CURLE_HTTP2, framing, 0, true),
            // A response had begun: the server processed the request.
            (CURLE_HTTP2, "", 98, false),
            // libcurl explained a failure of its own.
            (CURLE_HTTP2, "nghttp2_session_upgrade2() failed: Invalid argument(-501)", 0, false),
            // The server reset the stream (RST_STREAM, any code) or closed it unfinished.
            (CURLE_PARTIAL_FILE, "", 0, false),
            (CURLE_HTTP2_STREAM, "HTTP/2 stream 3 was not closed cleanly: INTERNAL_ERROR (err 2)", 0, false),
            (CURLE_HTTP2_STREAM, "", 0, false),
            // The connection broke, or libcurl gave up its own resends.
            (CURLE_RECV_ERROR, "", 0, false),
            (CURLE_SEND_ERROR, "Connection died, tried 5 times before giving up", 0, false),
            (CURLE_GOT_NOTHING, "", 0, false),
            (CURLE_OPERATION_TIMEDOUT, "", 0, false),
        ]
        for (code, detail, responseBytes, expected) in cases {
            #expect(TransportErrorMapping.neverProcessed(code: code, detail: detail, reachedTransfer: true, responseBytes: responseBytes)
                == expected, "\(code.rawValue) \(detail) \(responseBytes)")
            // Nothing sent: never processed, whatever the code.
            #expect(TransportErrorMapping.neverProcessed(code: code, detail: detail, reachedTransfer: false, responseBytes: responseBytes))
        }
        // The error says so, and the resend policy sends such a request again even when a
        // second copy would not be harmless.
        let refused = TransportErrorMapping.error(endpoint, code: CURLE_HTTP2, detail: "", reachedTransfer: true, responseBytes: 0)
        #expect(refused.code == .connectionLost && refused.neverProcessed)
        #expect(refused.transportFailure == .goAwayUnprocessed)
        let now = ContinuousClock.now
        #expect(ResendPolicy(maxConnectionRetries: 0).shouldResend(refused, retrySafe: false, failures: 1, cancelled: false,
                                                                  now: now, deadline: now + .seconds(5)))
        let answered = TransportErrorMapping.error(endpoint, code: CURLE_HTTP2, detail: "", reachedTransfer: true, responseBytes: 98)
        #expect(answered.code == .connectionLost && !answered.neverProcessed)
    }

    @Test("messages carry libcurl's detail, or its description of the code when it wrote none")
    func messages() {
        #expect(TransportErrorMapping.error(endpoint, code: CURLE_COULDNT_CONNECT, detail: "Failed to connect to 127.0.0.1 port 1",
                                            reachedTransfer: false, responseBytes: 0).message
            == "could not connect to api.push.apple.com:443: Failed to connect to 127.0.0.1 port 1")
        #expect(TransportErrorMapping.error(endpoint, code: CURLE_COULDNT_CONNECT, detail: "", reachedTransfer: false, responseBytes: 0).message
            == "could not connect to api.push.apple.com:443: Couldn't connect to server")
        #expect(TransportErrorMapping.error(endpoint, code: CURLE_PEER_FAILED_VERIFICATION, detail: "SSL certificate problem: certificate has expired",
                                            reachedTransfer: false, responseBytes: 0).message.contains("certificate not trusted: SSL certificate problem: certificate has expired"))
        #expect(TransportErrorMapping.noHTTP2(endpoint).message.contains("HTTP/2"))
    }

    @Test("the classification hook: transport failures retry with backoff, our own refusals do not")
    func outcomes() {
        #expect(APNsClientError(.timeout, "x").outcome == .retryWithBackoff)
        #expect(APNsClientError(.connectionLost, "x", neverProcessed: true).transportFailure == .goAwayUnprocessed)
        #expect(APNsClientError(.connectionLost, "x").transportFailure == .connectionReset)
        #expect(APNsClientError(.connectionFailed, "x").outcome == .retryWithBackoff)
        #expect(APNsClientError(.invalidRequest, "x").outcome == .requestMalformed)
        #expect(APNsClientError(.invalidCredentials, "x").outcome == .credentialsBroken)
        #expect(APNsClientError(.invalidConfiguration, "x").outcome == .configuration)
        #expect(APNsClientError(.cancelled, "x").outcome == nil)
        #expect(APNsClientError(.shutdown, "x").outcome == nil)
        let retryable = APNsClientError.Code.allCases.filter { APNsClientError($0, "x").isRetryable }
        #expect(Set(retryable) == [.timeout, .connectionFailed, .tlsFailure, .connectionLost, .invalidResponse, .transport])
    }
}
