/// The rules of `POST /3/device/<token>` for push-to-start and other device pushes
/// (apns.md §7 and Apple's device-push header list). Pure.
enum DevicePushRules {
    /// The device payload limit in bytes.
    static let payloadLimit = 4096

    /// Push types APNs knows, and the topic suffix each requires (none: the plain bundle id).
    static let topicSuffixes: [String: String] = [
        "alert": "", "background": "", "location": ".location-query", "voip": ".voip",
        "complication": ".complication", "fileprovider": ".pushkit.fileprovider", "mdm": "",
        "liveactivity": ".push-type.liveactivity", "pushtotalk": ".voip-ptt", "widgets": ".push-type.widgets",
    ]

    /// The headers of a valid device push.
    struct Headers: Equatable {
        let bundleID: String
        let pushType: String
        let priority: Int
    }

    /// Checks the token in the path: `MissingDeviceToken` or `BadDeviceToken`.
    static func checkToken(_ token: String) -> APNsReason? {
        if token.isEmpty { return .missingDeviceToken }
        return Identifiers.isWellFormedDeviceToken(token) ? nil : .badDeviceToken
    }

    /// Reads and checks the headers. `apns-push-type` defaults to `alert` (Apple only
    /// recommends it on iOS); a `liveactivity` push needs the `<bundle>.push-type.liveactivity` topic.
    static func headers(of request: H2Request) -> Result<Headers, APNsReason> {
        guard let topic = request.header("apns-topic"), !topic.isEmpty else { return .failure(.missingTopic) }
        let pushType = request.header("apns-push-type") ?? "alert"
        guard let suffix = topicSuffixes[pushType] else { return .failure(.invalidPushType) }
        var bundleID = topic
        if !suffix.isEmpty {
            guard topic.hasSuffix(suffix), topic.count > suffix.count else { return .failure(.deviceTokenNotForTopic) }
            bundleID = String(topic.dropLast(suffix.count))
        }
        var priority = 10
        if let text = request.header("apns-priority") {
            guard let value = Int(text), value == 10 || value == 5 || value == 1 else { return .failure(.badPriority) }
            priority = value
        }
        if let text = request.header("apns-expiration") {
            guard let value = Int(text), value >= 0 else { return .failure(.badExpirationDate) }
        }
        if let collapseID = request.header("apns-collapse-id"), collapseID.utf8.count > 64 {
            return .failure(.badCollapseId)
        }
        return .success(Headers(bundleID: bundleID, pushType: pushType, priority: priority))
    }
}
