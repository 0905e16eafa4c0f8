import Testing
@testable import APNsCore

@Suite struct APNsOutcomeClassTests {
    /// apns.md §8 row by row, then device-push reasons, then unknown reasons by status class.
    @Test(arguments: [
        (200, nil, APNsOutcomeClass.success),
        (201, nil, .success),
        (204, nil, .success),
        (200, "Shutdown", .success),
        (400, "ChannelNotRegistered", .channelGone),
        (400, "BadChannelId", .requestMalformed),
        (400, "MissingChannelId", .requestMalformed),
        (400, "BadExpirationDate", .requestMalformed),
        (400, "BadPriority", .requestMalformed),
        (400, "InvalidPushType", .requestMalformed),
        (400, "MissingPushType", .requestMalformed),
        (400, "TopicDisallowed", .requestMalformed),
        (400, "BadRequestPayload", .requestMalformed),
        (400, "BadRequestParams", .requestMalformed),
        (400, "PayloadEmpty", .requestMalformed),
        (400, "BadMessageId", .requestMalformed),
        (400, "FeatureNotEnabled", .configuration),
        (400, "CannotCreateChannelConfig", .configuration),
        (403, "ExpiredProviderToken", .renewTokenAndRetry),
        (403, "InvalidProviderToken", .credentialsBroken),
        (403, "MissingProviderToken", .credentialsBroken),
        (403, "TopicMismatch", .credentialsBroken),
        (403, "BadCertificate", .credentialsBroken),
        (403, "BadCertificateEnvironment", .credentialsBroken),
        (403, "Forbidden", .credentialsBroken),
        (404, "BadPath", .requestMalformed),
        (405, "MethodNotAllowed", .requestMalformed),
        (413, "PayloadTooLarge", .requestMalformed),
        (429, "TooManyRequests", .throttled),
        (429, "TooManyProviderTokenUpdates", .keepTokenAndRetry),
        (500, "InternalServerError", .retryWithBackoff),
        (503, "ServiceUnavailable", .retryWithBackoff),
        (503, "Shutdown", .retryWithBackoff),
        (400, "BadDeviceToken", .deviceTokenGone),
        (410, "Unregistered", .deviceTokenGone),
        (410, "ExpiredToken", .deviceTokenGone),
        (400, "DeviceTokenNotForTopic", .deviceTokenGone),
        (400, "BadCollapseId", .requestMalformed),
        (400, "BadTopic", .requestMalformed),
        (400, "DuplicateHeaders", .requestMalformed),
        (400, "MissingDeviceToken", .requestMalformed),
        (400, "MissingTopic", .requestMalformed),
        (400, "IdleTimeout", .retryWithBackoff),
        // Unknown or missing reasons: by status class.
        (400, "BrandNewReason", .requestMalformed),
        (400, nil, .requestMalformed),
        (403, "BrandNewReason", .credentialsBroken),
        (404, nil, .requestMalformed),
        (408, nil, .retryWithBackoff),
        (410, "BrandNewReason", .deviceTokenGone),
        (413, nil, .requestMalformed),
        (429, nil, .throttled),
        (429, "BrandNewReason", .throttled),
        (500, nil, .retryWithBackoff),
        (502, "BrandNewReason", .retryWithBackoff),
        (503, nil, .retryWithBackoff),
        (599, nil, .retryWithBackoff),
        (301, nil, .requestMalformed),
        (418, nil, .requestMalformed),
    ] as [(Int, String?, APNsOutcomeClass)])
    func classifiesLikeApnsMdSection8(status: Int, reason: String?, expected: APNsOutcomeClass) {
        #expect(APNsOutcomeClass.classify(status: status, reason: reason.map(APNsReason.init(rawValue:))) == expected)
    }

    @Test func everyDocumentedReasonAtItsStatusHasAClass() {
        for reason in APNsReason.documented {
            let status = reason.documentedStatus ?? 0
            let outcome = APNsOutcomeClass.classify(status: status, reason: reason)
            #expect(outcome != .success, "\(reason) classified as success")
            #expect(APNsOutcomeClass.classify(reason: reason) == outcome)
        }
    }

    @Test(arguments: [APNsTransportFailure.timeout, .connectionReset, .goAwayUnprocessed, .streamReset, .connectFailed])
    func transportFailuresAreRetried(failure: APNsTransportFailure) {
        #expect(APNsOutcomeClass.classify(transport: failure) == .retryWithBackoff)
    }

    @Test(arguments: [
        (500, nil, true), (503, nil, true), (503, "Shutdown", true), (400, "IdleTimeout", true),
        (429, "TooManyRequests", false), (400, "BadPriority", false), (200, nil, false),
    ] as [(Int, String?, Bool)])
    func freshConnectionAfterServerErrors(status: Int, reason: String?, expected: Bool) {
        #expect(APNsOutcomeClass.wantsFreshConnection(status: status, reason: reason.map(APNsReason.init(rawValue:))) == expected)
    }

    @Test(arguments: APNsOutcomeClass.allCases)
    func retryabilityIsConsistent(outcome: APNsOutcomeClass) {
        let retryable: Set<APNsOutcomeClass> = [.retryWithBackoff, .renewTokenAndRetry, .keepTokenAndRetry, .throttled]
        #expect(outcome.isRetryable == retryable.contains(outcome))
    }
}
