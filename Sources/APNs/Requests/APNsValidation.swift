import APNsCore

/// The checks made before a request leaves the process. Pure; each failure names what is wrong
/// (values are quoted shortened, and none of them is a secret).
enum APNsValidation {
    /// The suffix that turns a bundle id into a Live Activity device-push topic.
    static let liveActivityTopicSuffix = ".push-type.liveactivity"
    /// Longest bundle id or topic accepted (bounds the path and header size).
    static let maximumBundleIDLength = 255
    /// Longest channel id accepted (Apple gives no length; this bounds the header size).
    static let maximumChannelIDLength = 1024
    /// Longest device token accepted, in hex digits.
    static let maximumDeviceTokenLength = 512

    /// A bundle id: dot-separated non-empty segments of ASCII letters, digits and `-`.
    static func checkBundleID(_ bundleID: String, allowLiveActivitySuffix: Bool = false) throws(APNsClientError) {
        try checkReverseDNS(bundleID, what: "bundle id")
        if !allowLiveActivitySuffix && bundleID.hasSuffix(liveActivityTopicSuffix) {
            throw APNsClientError(.invalidRequest, "bundle id \(shown(bundleID)) must be the plain bundle id, without \"\(liveActivityTopicSuffix)\"", neverProcessed: true)
        }
    }

    /// A topic: a bundle id, optionally with a suffix such as `.push-type.liveactivity`.
    static func checkTopic(_ topic: String) throws(APNsClientError) {
        try checkReverseDNS(topic, what: "topic")
    }

    /// A channel id: non-empty, base64 characters only (`A–Z a–z 0–9 + / =`).
    static func checkChannelID(_ channelID: String) throws(APNsClientError) {
        guard !channelID.isEmpty else {
            throw APNsClientError(.invalidRequest, "the channel id is empty", neverProcessed: true)
        }
        guard channelID.utf8.count <= maximumChannelIDLength else {
            throw APNsClientError(.invalidRequest, "the channel id is \(channelID.utf8.count) bytes, over \(maximumChannelIDLength)", neverProcessed: true)
        }
        guard channelID.utf8.allSatisfy({ isAlphanumeric($0) || $0 == UInt8(ascii: "+") || $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "=") }) else {
            throw APNsClientError(.invalidRequest, "channel id \(shown(channelID)) has a character outside base64 (A-Z a-z 0-9 + / =)", neverProcessed: true)
        }
    }

    /// A device token: non-empty hexadecimal.
    static func checkDeviceToken(_ token: String) throws(APNsClientError) {
        guard !token.isEmpty, token.utf8.count <= maximumDeviceTokenLength else {
            throw APNsClientError(.invalidRequest, "the device token must be 1–\(maximumDeviceTokenLength) hex digits, got \(token.utf8.count)", neverProcessed: true)
        }
        guard token.utf8.allSatisfy(isHexDigit) else {
            throw APNsClientError(.invalidRequest, "device token \(shown(token)) is not hexadecimal", neverProcessed: true)
        }
    }

    /// A push type: letters, digits and `-`.
    static func checkPushType(_ pushType: APNsPushType) throws(APNsClientError) {
        let value = pushType.rawValue
        guard !value.isEmpty, value.utf8.count <= 64, value.utf8.allSatisfy({ isAlphanumeric($0) || $0 == UInt8(ascii: "-") }) else {
            throw APNsClientError(.invalidRequest, "push type \(shown(value)) must be 1–64 letters, digits or '-'", neverProcessed: true)
        }
    }

    /// A body: not empty and within the target's limit (5,120 broadcast, 4,096 device).
    static func checkPayload(_ payload: [UInt8], target: PushTarget) throws(APNsClientError) {
        guard !payload.isEmpty else {
            throw APNsClientError(.invalidRequest, "the \(target) payload is empty", neverProcessed: true)
        }
        guard payload.count <= target.payloadLimit else {
            throw APNsClientError(.invalidRequest, "the \(target) payload is \(payload.count) bytes, over the \(target.payloadLimit)-byte limit", neverProcessed: true)
        }
    }

    /// `apns-expiration`: UNIX seconds, never negative.
    static func checkExpiration(_ expiration: Int) throws(APNsClientError) {
        guard expiration >= 0 else {
            throw APNsClientError(.invalidRequest, "apns-expiration must be UNIX seconds ≥ 0, got \(expiration)", neverProcessed: true)
        }
    }

    private static func checkReverseDNS(_ value: String, what: String) throws(APNsClientError) {
        guard !value.isEmpty, value.utf8.count <= maximumBundleIDLength else {
            throw APNsClientError(.invalidRequest, "the \(what) must be 1–\(maximumBundleIDLength) characters, got \(value.utf8.count)", neverProcessed: true)
        }
        guard value.utf8.allSatisfy({ isAlphanumeric($0) || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: ".") }) else {
            throw APNsClientError(.invalidRequest, "\(what) \(shown(value)) may only contain A-Z a-z 0-9 '-' and '.'", neverProcessed: true)
        }
        // One pass over the bytes (this runs for every request): a segment is empty when a dot
        // starts the value, follows another dot, or ends it.
        var previousWasDot = true
        var emptySegment = false
        for byte in value.utf8 {
            let isDot = byte == UInt8(ascii: ".")
            if isDot && previousWasDot { emptySegment = true }
            previousWasDot = isDot
        }
        guard !emptySegment && !previousWasDot else {
            throw APNsClientError(.invalidRequest, "\(what) \(shown(value)) has an empty segment (leading, trailing or double '.')", neverProcessed: true)
        }
    }

    private static func isAlphanumeric(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
            || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
    }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
            || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(byte)
    }

    /// The value in quotes, shortened, with control characters escaped, for an error message.
    private static func shown(_ value: String) -> String {
        let short = value.count > 64 ? String(value.prefix(64)) + "…" : value
        return "\"" + short.unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7F ? "\\u{\(String($0.value, radix: 16))}" : String($0) }.joined() + "\""
    }
}
