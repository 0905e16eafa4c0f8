import Testing
@testable import APNs

@Suite("request validation")
struct APNsValidationTests {
    @Test("bundle ids: reverse-DNS segments of letters, digits and '-'", arguments: [
        "com.example.app", "com.example.my-app", "A1.b2", "single",
    ])
    func validBundleIDs(_ bundleID: String) throws {
        try APNsValidation.checkBundleID(bundleID)
    }

    @Test("malformed bundle ids are refused with a message naming the bundle id", arguments: [
        "", "com..example", ".com.example", "com.example.", "com.example/app", "com example", "com.exämple",
        "com.example.app\r\nx-evil: 1", String(repeating: "a", count: 256),
    ])
    func invalidBundleIDs(_ bundleID: String) {
        let error = #expect(throws: APNsClientError.self) { try APNsValidation.checkBundleID(bundleID) }
        #expect(error?.code == .invalidRequest)
        #expect(error?.neverProcessed == true)
        #expect(error?.message.contains("bundle id") == true)
        #expect(error?.message.contains("\r\n") == false)
    }

    @Test("the Live Activity topic suffix is refused on a bundle id but allowed on a topic")
    func liveActivitySuffix() throws {
        let error = #expect(throws: APNsClientError.self) {
            try APNsValidation.checkBundleID("com.example.app.push-type.liveactivity")
        }
        #expect(error?.message.contains(".push-type.liveactivity") == true)
        try APNsValidation.checkTopic("com.example.app.push-type.liveactivity")
    }

    @Test("channel ids: non-empty base64 characters", arguments: ["dHdvIGNoYW5uZWxz", "ab+/cd==", "Z"])
    func validChannelIDs(_ channelID: String) throws {
        try APNsValidation.checkChannelID(channelID)
    }

    @Test("malformed channel ids are refused", arguments: ["", "abc-def", "abc_def", "abc def", "abc\ndef", "é"])
    func invalidChannelIDs(_ channelID: String) {
        let error = #expect(throws: APNsClientError.self) { try APNsValidation.checkChannelID(channelID) }
        #expect(error?.code == .invalidRequest)
        #expect(error?.message.contains("channel id") == true)
    }

    @Test("device tokens are hexadecimal")
    func deviceTokens() throws {
        try APNsValidation.checkDeviceToken(String(repeating: "a1F0", count: 16))
        for bad in ["", "xyz", "00/11", String(repeating: "a", count: 513)] {
            #expect(throws: APNsClientError.self) { try APNsValidation.checkDeviceToken(bad) }
        }
    }

    @Test("payload sizes: 5,120 bytes for a broadcast, 4,096 for a device, never empty")
    func payloadSizes() throws {
        try APNsValidation.checkPayload([UInt8](repeating: 0x20, count: 5120), target: .broadcast)
        let broadcast = #expect(throws: APNsClientError.self) {
            try APNsValidation.checkPayload([UInt8](repeating: 0x20, count: 5121), target: .broadcast)
        }
        #expect(broadcast?.message.contains("5121") == true)
        #expect(broadcast?.message.contains("5120") == true)
        try APNsValidation.checkPayload([UInt8](repeating: 0x20, count: 4096), target: .device)
        #expect(throws: APNsClientError.self) {
            try APNsValidation.checkPayload([UInt8](repeating: 0x20, count: 4097), target: .device)
        }
        let empty = #expect(throws: APNsClientError.self) { try APNsValidation.checkPayload([], target: .broadcast) }
        #expect(empty?.message.contains("empty") == true)
    }

    @Test("expiration must be zero or positive")
    func expiration() throws {
        try APNsValidation.checkExpiration(0)
        try APNsValidation.checkExpiration(1_764_453_600)
        let error = #expect(throws: APNsClientError.self) { try APNsValidation.checkExpiration(-1) }
        #expect(error?.message.contains("-1") == true)
    }

    @Test("push types are header-safe tokens")
    func pushTypes() throws {
        try APNsValidation.checkPushType(.liveActivity)
        try APNsValidation.checkPushType(APNsPushType(rawValue: "complication"))
        #expect(throws: APNsClientError.self) { try APNsValidation.checkPushType(APNsPushType(rawValue: "")) }
        #expect(throws: APNsClientError.self) { try APNsValidation.checkPushType(APNsPushType(rawValue: "alert\r\nx: y")) }
    }
}
