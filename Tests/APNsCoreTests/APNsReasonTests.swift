import Testing
@testable import APNsCore

@Suite struct APNsReasonTests {
    /// Every reason string apns.md §7–8 names, plus Apple's device-push reasons.
    static let documentedStrings = [
        "ChannelNotRegistered", "BadChannelId", "MissingChannelId", "BadExpirationDate", "BadPriority",
        "InvalidPushType", "MissingPushType", "TopicDisallowed", "BadRequestPayload", "BadRequestParams",
        "PayloadEmpty", "BadMessageId", "FeatureNotEnabled", "CannotCreateChannelConfig",
        "ExpiredProviderToken", "InvalidProviderToken", "MissingProviderToken", "TopicMismatch",
        "BadCertificate", "BadCertificateEnvironment", "BadPath", "MethodNotAllowed", "PayloadTooLarge",
        "TooManyRequests", "TooManyProviderTokenUpdates", "InternalServerError", "ServiceUnavailable",
        "Shutdown", "BadDeviceToken", "Unregistered", "BadCollapseId", "BadTopic", "DeviceTokenNotForTopic",
        "DuplicateHeaders", "IdleTimeout", "MissingDeviceToken", "MissingTopic", "Forbidden", "ExpiredToken",
    ]

    @Test(arguments: documentedStrings)
    func documentedReasonRoundTrips(text: String) {
        let reason = APNsReason(rawValue: text)
        if case .unknown = reason { Issue.record("\(text) should be a documented case") }
        #expect(reason.rawValue == text)
        #expect(reason.documentedStatus != nil)
    }

    @Test func documentedListMatchesTheCases() {
        #expect(Set(APNsReason.documented.map(\.rawValue)) == Set(Self.documentedStrings))
        #expect(APNsReason.documented.count == Self.documentedStrings.count)
    }

    @Test(arguments: ["SomethingNew", "channelnotregistered", "", " BadPath"])
    func unknownReasonIsKeptVerbatim(text: String) {
        #expect(APNsReason(rawValue: text) == .unknown(text))
        #expect(APNsReason(rawValue: text).rawValue == text)
        #expect(APNsReason(rawValue: text).documentedStatus == nil)
    }

    @Test(arguments: [
        (APNsReason.channelNotRegistered, 400), (.badPath, 404), (.methodNotAllowed, 405), (.unregistered, 410),
        (.payloadTooLarge, 413), (.tooManyRequests, 429), (.internalServerError, 500), (.shutdown, 503),
        (.expiredProviderToken, 403),
    ])
    func documentedStatusMatchesApple(reason: APNsReason, status: Int) {
        #expect(reason.documentedStatus == status)
    }
}
