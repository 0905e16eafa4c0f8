import APNsCore
import Foundation
import JSON
import Testing
@testable import APNs

/// Every request is built as apns.md describes it; these checks come from the document, not
/// from the client.
@Suite("request building")
struct APNsRequestBuilderTests {
    let builder = APNsRequestBuilder(
        sendEndpoint: APNsEndpoint(host: "api.sandbox.push.apple.com", port: 443),
        managementEndpoint: APNsEndpoint(host: "api-manage-broadcast.sandbox.push.apple.com", port: 2195))
    let requestID = UUID(uuidString: "0E0F1A2B-3C4D-4E5F-8A9B-0C1D2E3F4A5B")!

    /// Every header the request sends, `authorization` included.
    private func headers(_ request: HTTPRequest) -> [String: String] {
        let all = (request.authorization.map { [HTTPHeader("authorization", $0)] } ?? []) + request.headers
        return Dictionary(all.map { ($0.name, $0.value) }, uniquingKeysWith: { first, _ in first })
    }

    @Test("create: POST /1/apps/<bundleId>/channels with policy and push type, on the management host")
    func create() throws {
        let request = try builder.createChannel(bundleID: "com.example.app", policy: .noMessageStored, requestID: requestID)
            .signed(authorization: "bearer T")
        #expect(request.method == .post)
        #expect(request.url == "https://api-manage-broadcast.sandbox.push.apple.com:2195/1/apps/com.example.app/channels")
        let body = try JSONParser().parse(request.body)
        #expect(body == ["message-storage-policy": 0, "push-type": "LiveActivity"])
        #expect(headers(request)["authorization"] == "bearer T")
        #expect(headers(request)["apns-request-id"] == "0e0f1a2b-3c4d-4e5f-8a9b-0c1d2e3f4a5b")
        let stored = try builder.createChannel(bundleID: "com.example.app", policy: .mostRecentMessageStored, requestID: nil)
        #expect(try JSONParser().parse(stored.body)["message-storage-policy"] == 1)
    }

    @Test("read and delete carry the channel id in a header, never in the path")
    func readAndDelete() throws {
        let read = try builder.readChannel(bundleID: "com.example.app", channelID: "dHdvIGNoYW5uZWxz", requestID: nil)
            .signed(authorization: "bearer T")
        #expect(read.method == .get)
        #expect(read.path == "/1/apps/com.example.app/channels")
        #expect(headers(read)["apns-channel-id"] == "dHdvIGNoYW5uZWxz")
        #expect(read.body.isEmpty)
        let delete = try builder.deleteChannel(bundleID: "com.example.app", channelID: "dHdvIGNoYW5uZWxz", requestID: nil)
            .signed(authorization: "bearer T")
        #expect(delete.method == .delete)
        #expect(delete.path == "/1/apps/com.example.app/channels")
        #expect(headers(delete)["apns-channel-id"] == "dHdvIGNoYW5uZWxz")
    }

    @Test("list is /all-channels, not /channels")
    func list() throws {
        let list = try builder.listChannels(bundleID: "com.example.app", requestID: nil).signed(authorization: "bearer T")
        #expect(list.method == .get)
        #expect(list.path == "/1/apps/com.example.app/all-channels")
        #expect(list.endpoint.host == "api-manage-broadcast.sandbox.push.apple.com")
    }

    @Test("broadcast: POST /4/broadcasts/apps/<bundleId>, the §3 headers, no apns-topic")
    func broadcast() throws {
        let payload = Array(#"{"aps":{"event":"update","timestamp":1764453600,"content-state":{}}}"#.utf8)
        let request = try builder.broadcast(Broadcast(
            bundleID: "com.example.app", channelID: "dHdvIGNoYW5uZWxz", priority: .immediate, expiration: 0,
            payload: payload, requestID: requestID)).signed(authorization: "bearer T")
        #expect(request.method == .post)
        #expect(request.url == "https://api.sandbox.push.apple.com:443/4/broadcasts/apps/com.example.app")
        let sent = headers(request)
        #expect(sent["apns-channel-id"] == "dHdvIGNoYW5uZWxz")
        #expect(sent["apns-push-type"] == "liveactivity")
        #expect(sent["apns-priority"] == "10")
        #expect(sent["apns-expiration"] == "0")
        #expect(sent["apns-request-id"] == "0e0f1a2b-3c4d-4e5f-8a9b-0c1d2e3f4a5b")
        #expect(sent["apns-topic"] == nil)
        #expect(request.body == payload)
        #expect(request.authorization == "bearer T")
        #expect(!request.headers.contains { $0.name == "authorization" })
    }

    @Test("broadcast built from a Live Activity payload; a start event is refused")
    func broadcastFromPayload() throws {
        let update = LiveActivityPayload(timestamp: 1_764_453_600, event: .update, contentState: ["homeScore": 2])
        let broadcast = try Broadcast(bundleID: "com.example.app", channelID: "abc", priority: .opportunistic,
                                      expiration: 0, payload: update)
        #expect(try JSONParser().parse(broadcast.payload)["aps"]?["event"] == "update")
        let start = LiveActivityPayload(timestamp: 1_764_453_600, event: .start, contentState: ["homeScore": 2])
        #expect(throws: LiveActivityPayloadError.self) {
            _ = try Broadcast(bundleID: "com.example.app", channelID: "abc", priority: .immediate, expiration: 0, payload: start)
        }
    }

    @Test("broadcast validation happens before anything is sent")
    func broadcastValidation() {
        let good = Broadcast(bundleID: "com.example.app", channelID: "abc", priority: .immediate, expiration: 0, payload: [0x7B, 0x7D])
        var tooBig = good
        tooBig.payload = [UInt8](repeating: 0x20, count: 5121)
        var negative = good
        negative.expiration = -5
        var badChannel = good
        badChannel.channelID = "not base64!"
        var suffixed = good
        suffixed.bundleID = "com.example.app.push-type.liveactivity"
        for broadcast in [tooBig, negative, badChannel, suffixed] {
            #expect(throws: APNsClientError.self) { _ = try builder.broadcast(broadcast) }
        }
    }

    @Test("device push: POST /3/device/<token> with push type, topic, priority, apns-id")
    func devicePush() throws {
        let token = String(repeating: "ab", count: 32)
        let request = try builder.devicePush(DevicePush(
            token: token, topic: "com.example.app.push-type.liveactivity", pushType: .liveActivity,
            priority: .immediate, expiration: 1_764_460_000, payload: [0x7B, 0x7D], requestID: requestID))
            .signed(authorization: "bearer T")
        #expect(request.path == "/3/device/\(token)")
        #expect(request.endpoint.host == "api.sandbox.push.apple.com")
        let sent = headers(request)
        #expect(sent["apns-push-type"] == "liveactivity")
        #expect(sent["apns-topic"] == "com.example.app.push-type.liveactivity")
        #expect(sent["apns-priority"] == "10")
        #expect(sent["apns-expiration"] == "1764460000")
        #expect(sent["apns-id"] == "0e0f1a2b-3c4d-4e5f-8a9b-0c1d2e3f4a5b")
        let noExpiry = try builder.devicePush(DevicePush(
            token: token, topic: "com.example.app", pushType: .alert, priority: .opportunistic, payload: [0x7B, 0x7D]))
        #expect(!noExpiry.headers.contains { $0.name == "apns-expiration" })
        #expect(throws: APNsClientError.self) {
            _ = try builder.devicePush(DevicePush(token: token, topic: "com.example.app", pushType: .alert,
                                                  priority: .immediate, payload: [UInt8](repeating: 0x20, count: 4097)))
        }
    }
}

@Suite("retry safety")
struct RetrySafetyTests {
    let builder = APNsRequestBuilder(sendEndpoint: .sandboxSend, managementEndpoint: .sandboxManagement)

    @Test("broadcasts, device pushes, reads and lists may be resent; creation and deletion never")
    func retrySafety() throws {
        #expect(try builder.broadcast(Broadcast(bundleID: "a.b", channelID: "c", priority: .immediate, expiration: 0, payload: [0x7B, 0x7D])).retrySafe)
        #expect(try builder.devicePush(DevicePush(token: "ab", topic: "a.b", pushType: .alert, priority: .immediate, payload: [0x7B, 0x7D])).retrySafe)
        #expect(try builder.readChannel(bundleID: "a.b", channelID: "c", requestID: nil).retrySafe)
        #expect(try builder.listChannels(bundleID: "a.b", requestID: nil).retrySafe)
        #expect(try !builder.createChannel(bundleID: "a.b", policy: .noMessageStored, requestID: nil).retrySafe)
        #expect(try !builder.deleteChannel(bundleID: "a.b", channelID: "c", requestID: nil).retrySafe)
        #expect(try builder.broadcast(Broadcast(bundleID: "a.b", channelID: "c", priority: .immediate, expiration: 0, payload: [0x7B, 0x7D]))
            .signed(authorization: "bearer T").retrySafe)
    }
}

/// Request ids go out in the canonical lowercase form (apns.md §2), written without Foundation's
/// formatter: checked against it, and against a fixed value.
@Suite("request ids")
struct RequestIDFormTests {
    @Test("a UUID's lowercase form is Foundation's, lowercased, and matches the canonical pattern")
    func lowercaseForm() throws {
        #expect(UUID(uuidString: "0E0F1A2B-3C4D-4E5F-8A9B-0C1D2E3F4A5B")!.lowercasedString == "0e0f1a2b-3c4d-4e5f-8a9b-0c1d2e3f4a5b")
        #expect(UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)).lowercasedString == "00000000-0000-0000-0000-000000000000")
        let pattern = try Regex("^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")
        for _ in 0..<1_000 {
            let id = UUID()
            #expect(id.lowercasedString == id.uuidString.lowercased())
            #expect(id.lowercasedString.wholeMatch(of: pattern) != nil)
        }
    }

    @Test("fresh request ids are random version-4 UUIDs of the RFC 4122 variant, and none repeats")
    func freshIDs() throws {
        let pattern = try Regex("^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$")
        var seen = Set<UUID>()
        var bitsSet = [Int](repeating: 0, count: 128)
        for _ in 0..<10_000 {
            let id = UUID.randomRequestID()
            #expect(id.lowercasedString.wholeMatch(of: pattern) != nil, "\(id)")
            seen.insert(id)
            withUnsafeBytes(of: id.uuid) { bytes in
                for bit in 0..<128 where bytes[bit / 8] & (1 << (bit % 8)) != 0 { bitsSet[bit] += 1 }
            }
        }
        #expect(seen.count == 10_000)
        // The 122 random bits are each set about half the time (the 6 fixed ones never vary).
        let random = bitsSet.filter { (4_000...6_000).contains($0) }.count
        #expect(random == 122, "bits set: \(bitsSet)")
    }
}
