import APNsCore
import Testing
@testable import APNs

@Suite("response parsing")
struct APNsResponseTests {
    private func parse(_ status: Int, _ body: String = "", headers: [String: String] = [:]) -> APNsResponse {
        var kept = APNsResponseHeaders()
        for (name, value) in headers {
            if let field = APNsResponseHeaders.Field(cName: name) { kept.keepFirst(field, value) }
        }
        return APNsResponse.parse(HTTPResponse(status: status, headers: kept, body: Array(body.utf8), latency: .milliseconds(3)))
    }

    @Test("the five APNs headers are told apart by name without case; any other header is not kept; the first of a name counts")
    func headerFields() {
        #expect(APNsResponseHeaders.Field(cName: "apns-request-id") == .requestID)
        #expect(APNsResponseHeaders.Field(cName: "APNS-ID") == .apnsID)
        #expect(APNsResponseHeaders.Field(cName: "apns-unique-id") == .uniqueID)
        #expect(APNsResponseHeaders.Field(cName: "Apns-Channel-Id") == .channelID)
        #expect(APNsResponseHeaders.Field(cName: "retry-after") == .retryAfter)
        for other in ["apns-i", "apns-idx", "authorization", "content-length", "retry", ""] {
            #expect(APNsResponseHeaders.Field(cName: other) == nil, "\(other)")
        }
        var headers = APNsResponseHeaders()
        headers.keepFirst(.retryAfter, "120")
        headers.keepFirst(.retryAfter, "5")
        headers.keepFirst(.uniqueID, "u-1")
        #expect(headers == APNsResponseHeaders(uniqueID: "u-1", retryAfter: "120"))
    }

    @Test("a device push's apns-id is its request id when no apns-request-id came")
    func deviceRequestID() {
        #expect(parse(200, headers: ["apns-id": "d-1"]).requestID == "d-1")
        #expect(parse(200, headers: ["apns-id": "d-1", "apns-request-id": "r-1"]).requestID == "r-1")
    }

    @Test("a success carries the identifying headers and no reason")
    func success() {
        let response = parse(200, headers: ["apns-request-id": "r-1", "apns-unique-id": "u-1"])
        #expect(response.isSuccess)
        #expect(response.reason == nil)
        #expect(response.requestID == "r-1")
        #expect(response.uniqueID == "u-1")
        #expect(response.outcome == .success)
        #expect(response.latency == .milliseconds(3))
    }

    @Test("every documented reason is parsed into its case and classified")
    func documentedReasons() {
        for reason in APNsReason.documented {
            let status = reason.documentedStatus ?? 400
            let response = parse(status, #"{"reason":"\#(reason.rawValue)"}"#)
            #expect(response.reason == reason)
            #expect(response.outcome == APNsOutcomeClass.classify(status: status, reason: reason))
            #expect(!response.isSuccess)
        }
    }

    @Test("an unknown reason is kept verbatim and handled by its status class")
    func unknownReason() {
        let response = parse(429, #"{"reason":"SomethingNew"}"#)
        #expect(response.reason == .unknown("SomethingNew"))
        #expect(response.outcome == .throttled)
        #expect(parse(503, "not json").reason == nil)
        #expect(parse(503, "not json").outcome == .retryWithBackoff)
    }

    @Test("Retry-After and the 410 timestamp")
    func retryAfterAndTimestamp() {
        let throttled = parse(429, #"{"reason":"TooManyRequests"}"#, headers: ["retry-after": " 30 "])
        #expect(throttled.retryAfter == " 30 ")
        #expect(throttled.retryAfterSeconds == 30)
        #expect(parse(429, headers: ["retry-after": "Wed, 21 Oct 2026 07:28:00 GMT"]).retryAfterSeconds == nil)
        let gone = parse(410, #"{"reason":"Unregistered","timestamp":1764453600000}"#)
        #expect(gone.reason == .unregistered)
        #expect(gone.timestamp == 1_764_453_600_000)
        #expect(gone.outcome == .deviceTokenGone)
    }

    @Test("read-channel and list bodies")
    func channelBodies() {
        let read = parse(200, #"{"message-storage-policy": 1, "push-type": "LiveActivity"}"#)
        #expect(read.channelConfiguration == ChannelConfiguration(storagePolicy: .mostRecentMessageStored, pushType: "LiveActivity"))
        let list = parse(200, #"{"channels": ["a+b/", "Yz=="]}"#)
        #expect(list.channelIDs == ["a+b/", "Yz=="])
        #expect(parse(200, #"{"channels": [1]}"#).channelIDs == nil)
        #expect(parse(400, #"{"reason":"BadChannelId"}"#).channelConfiguration == nil)
    }
}
