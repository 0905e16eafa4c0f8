@testable import APNsSimulator
import Testing

/// The broadcast header, expiration and payload rules of apns.md §3.
@Suite struct BroadcastRulesTests {
    func request(_ headers: [(String, String)]) -> H2Request {
        var request = H2Request()
        request.method = "POST"
        request.headers = headers.map { (name: $0.0, value: $0.1) }
        return request
    }

    let complete = [("apns-channel-id", "dHN0LXNyY2gtY2hubA=="), ("apns-push-type", "liveactivity"), ("apns-priority", "10"), ("apns-expiration", "0")]

    @Test func completeHeaders() throws {
        let headers = try BroadcastRules.headers(of: request(complete), allowsPriorityOne: false).get()
        #expect(headers == .init(channelID: "dHN0LXNyY2gtY2hubA==", priority: 10, expiration: 0))
    }

    @Test func firstBrokenRuleIsReported() {
        func reason(without name: String? = nil, replacing: (String, String)? = nil) -> APNsReason? {
            var headers = complete.filter { $0.0 != name }
            if let replacing { headers = headers.map { $0.0 == replacing.0 ? replacing : $0 } }
            if case .failure(let reason) = BroadcastRules.headers(of: request(headers), allowsPriorityOne: false) { return reason }
            return nil
        }
        #expect(reason(without: "apns-channel-id") == .missingChannelId)
        #expect(reason(without: "apns-push-type") == .missingPushType)
        #expect(reason(replacing: ("apns-push-type", "LiveActivity")) == .invalidPushType)
        #expect(reason(replacing: ("apns-priority", "1")) == .badPriority)
        #expect(reason(replacing: ("apns-expiration", "-1")) == .badExpirationDate)
        #expect(reason(replacing: ("apns-channel-id", "abc")) == .badChannelId)
    }

    @Test func expirationPerPolicy() {
        let now = 1_764_453_600.0
        #expect(BroadcastRules.checkExpiration(0, policy: .noMessageStored, now: now) == nil)
        #expect(BroadcastRules.checkExpiration(1, policy: .noMessageStored, now: now) == .badExpirationDate)
        #expect(BroadcastRules.checkExpiration(Int(now) + 8 * 3600, policy: .mostRecentMessageStored, now: now) == nil)
        #expect(BroadcastRules.checkExpiration(Int(now) + 8 * 3600 + 1, policy: .mostRecentMessageStored, now: now) == .badExpirationDate)
        #expect(BroadcastRules.checkExpiration(Int(now) - 60, policy: .mostRecentMessageStored, now: now) == nil)
    }

    @Test func payloadLimits() {
        #expect(BroadcastRules.checkPayload([], length: 0) == .payloadEmpty)
        #expect(BroadcastRules.checkPayload(Array("{}".utf8), length: 5121) == .payloadTooLarge)
        #expect(BroadcastRules.checkPayload(Array("{}".utf8), length: 2) == nil)
        #expect(BroadcastRules.checkPayload(Array("nope".utf8), length: 4) == .badRequestPayload)
    }
}
