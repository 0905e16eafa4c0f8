import Foundation
import ScorecastCore
import Testing
@testable import APNs

@Suite("transport error mapping")
struct TransportErrorMappingTests {
    private let endpoint = APNsEndpoint(host: "api.push.apple.com", port: 443)

    @Test("each socket, TLS and HTTP/2 failure becomes the right client error")
    func mapping() {
        let cases: [(APNsClientError, APNsClientError.Code, Bool)] = [
            (TransportErrorMapping.resolutionFailed(endpoint, detail: "Name or service not known"), .connectionFailed, true),
            (TransportErrorMapping.connectFailed(endpoint, errno: ECONNREFUSED), .connectionFailed, true),
            (TransportErrorMapping.connectTimedOut(endpoint, after: .seconds(5)), .timeout, true),
            (TransportErrorMapping.tlsFailed(endpoint, verification: "self-signed certificate", detail: ""), .tlsFailure, true),
            (TransportErrorMapping.tlsFailed(endpoint, verification: nil, detail: "handshake failure"), .tlsFailure, true),
            (TransportErrorMapping.trustStoreFailed(endpoint, detail: "no such file"), .tlsFailure, true),
            (TransportErrorMapping.noHTTP2(endpoint), .invalidResponse, true),
            (TransportErrorMapping.streamClosed(endpoint, code: 7), .connectionLost, true),
            (TransportErrorMapping.streamClosed(endpoint, code: 2), .connectionLost, false),
            (TransportErrorMapping.goAwayRefused(endpoint), .connectionLost, true),
            (TransportErrorMapping.connectionClosed(endpoint, reason: "reset", sent: true), .connectionLost, false),
            (TransportErrorMapping.connectionClosed(endpoint, reason: "reset", sent: false), .connectionLost, true),
            (TransportErrorMapping.submitFailed(endpoint, detail: "no stream id"), .connectionLost, true),
            (TransportErrorMapping.responseTooLarge(limit: 1000), .invalidResponse, false),
            (TransportErrorMapping.missingStatus(endpoint), .invalidResponse, false),
            (TransportErrorMapping.deadlineWhileQueued(), .timeout, true),
            (TransportErrorMapping.deadlineOnStream(endpoint, sent: true), .timeout, false),
            (TransportErrorMapping.deadlineOnStream(endpoint, sent: false), .timeout, true),
            (TransportErrorMapping.cancelled(onStream: true), .cancelled, false),
            (TransportErrorMapping.cancelled(onStream: false), .cancelled, true),
            (TransportErrorMapping.shutdown(onStream: true), .shutdown, false),
            (TransportErrorMapping.shutdown(onStream: false), .shutdown, true),
        ]
        for (error, code, neverProcessed) in cases {
            #expect(error.code == code, "\(error)")
            #expect(error.neverProcessed == neverProcessed, "\(error)")
            #expect(!error.message.isEmpty)
        }
    }

    @Test("messages name the endpoint and the cause")
    func messages() {
        #expect(TransportErrorMapping.connectFailed(endpoint, errno: ECONNREFUSED).message
            == "could not connect to api.push.apple.com:443: Connection refused (errno \(ECONNREFUSED))")
        #expect(TransportErrorMapping.streamClosed(endpoint, code: 2).message.contains("INTERNAL_ERROR"))
        #expect(TransportErrorMapping.streamClosed(endpoint, code: 7).message.contains("REFUSED_STREAM"))
        #expect(TransportErrorMapping.noHTTP2(endpoint).message.contains("HTTP/2"))
        #expect(TransportErrorMapping.tlsFailed(endpoint, verification: "certificate has expired", detail: "").message
            .contains("certificate has expired"))
        #expect(TransportErrorMapping.http2ErrorName(0xb) == "ENHANCE_YOUR_CALM")
        #expect(TransportErrorMapping.http2ErrorName(0x99) == "error 153")
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
