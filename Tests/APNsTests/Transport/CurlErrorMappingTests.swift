internal import CCurl
import ScorecastCore
import Testing
@testable import APNs

@Suite("curl error mapping")
struct CurlErrorMappingTests {
    @Test("each libcurl failure becomes the right client error and outcome")
    func mapping() {
        let cases: [(CURLcode, Bool, APNsClientError.Code, Bool)] = [
            (CURLE_OPERATION_TIMEDOUT, true, .timeout, false),
            (CURLE_OPERATION_TIMEDOUT, false, .timeout, true),
            (CURLE_COULDNT_CONNECT, false, .connectionFailed, true),
            (CURLE_COULDNT_RESOLVE_HOST, false, .connectionFailed, true),
            (CURLE_PEER_FAILED_VERIFICATION, false, .tlsFailure, true),
            (CURLE_SSL_CONNECT_ERROR, false, .tlsFailure, true),
            (CURLE_HTTP2_STREAM, true, .connectionLost, false),
            (CURLE_RECV_ERROR, true, .connectionLost, false),
            (CURLE_SEND_ERROR, false, .connectionLost, true),
            (CURLE_WEIRD_SERVER_REPLY, true, .invalidResponse, false),
            (CURLE_OUT_OF_MEMORY, true, .transport, false),
        ]
        for (code, reached, expected, neverProcessed) in cases {
            let error = CurlErrorMapping.error(code: code, detail: "", reachedTransfer: reached, responseTooLarge: false)
            #expect(error.code == expected, "\(code)")
            #expect(error.neverProcessed == neverProcessed, "\(code)")
            #expect(!error.message.isEmpty)
        }
        let tooLarge = CurlErrorMapping.error(code: CURLE_WRITE_ERROR, detail: "", reachedTransfer: true, responseTooLarge: true)
        #expect(tooLarge.code == .invalidResponse)
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
