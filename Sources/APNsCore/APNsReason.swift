/// The `reason` string of a failed APNs response (`{"reason": "…"}`), as documented in Apple's
/// "Handling error responses from APNs" and apns.md §7–8.
///
/// Every documented reason is a case; anything else is kept verbatim in ``unknown(_:)`` and is
/// handled by its HTTP status class (see ``APNsOutcomeClass/classify(status:reason:)``).
public enum APNsReason: Sendable, Hashable, CustomStringConvertible {
    // Broadcast and channel management (apns.md §8, 400).
    /// 400: the channel does not exist (deleted, or another environment).
    case channelNotRegistered
    /// 400: the `apns-channel-id` header is malformed.
    case badChannelId
    /// 400: the `apns-channel-id` header is missing.
    case missingChannelId
    /// 400: `apns-expiration` is invalid (non-zero on a No-Message-Stored channel).
    case badExpirationDate
    /// 400: `apns-priority` is invalid.
    case badPriority
    /// 400: `apns-push-type` is invalid.
    case invalidPushType
    /// 400: `apns-push-type` is missing.
    case missingPushType
    /// 400: the topic (or path suffix) is not allowed.
    case topicDisallowed
    /// 400: the body is not acceptable.
    case badRequestPayload
    /// 400: request parameters are not acceptable.
    case badRequestParams
    /// 400: the body is empty.
    case payloadEmpty
    /// 400: `apns-request-id` is not a valid UUID.
    case badMessageId
    /// 400: broadcast is not enabled for the app.
    case featureNotEnabled
    /// 400: the channel could not be created (for example the 10,000-channel limit).
    case cannotCreateChannelConfig

    // Device pushes (apns.md §7 and Apple's list, 400).
    /// 400: `apns-collapse-id` is too long.
    case badCollapseId
    /// 400: the device token is invalid.
    case badDeviceToken
    /// 400: `apns-topic` is invalid.
    case badTopic
    /// 400: the device token does not match the topic.
    case deviceTokenNotForTopic
    /// 400: a header was repeated.
    case duplicateHeaders
    /// 400: the connection was idle too long.
    case idleTimeout
    /// 400: no device token in the path.
    case missingDeviceToken
    /// 400: `apns-topic` is missing where it is required.
    case missingTopic

    // Authentication (403).
    /// 403: the certificate is invalid.
    case badCertificate
    /// 403: the certificate is for the other environment.
    case badCertificateEnvironment
    /// 403: the provider token is older than one hour.
    case expiredProviderToken
    /// 403: the action is not allowed.
    case forbidden
    /// 403: the provider token is invalid or its signature does not verify.
    case invalidProviderToken
    /// 403: no provider token and no certificate.
    case missingProviderToken
    /// 403: the topic does not belong to the token's team.
    case topicMismatch

    // Path, method, size, gone, throttling, server.
    /// 404: the request path is wrong.
    case badPath
    /// 405: the method is not supported.
    case methodNotAllowed
    /// 410: the device token has expired.
    case expiredToken
    /// 410: the device token is no longer active for the topic.
    case unregistered
    /// 413: the body is too large.
    case payloadTooLarge
    /// 429: the provider token was changed too often on one connection.
    case tooManyProviderTokenUpdates
    /// 429: too many requests (budget exhausted or throttled).
    case tooManyRequests
    /// 500: internal server error.
    case internalServerError
    /// 503: the service is unavailable.
    case serviceUnavailable
    /// 503: the server is shutting down.
    case shutdown

    /// A reason not documented by Apple when this was written, kept verbatim.
    case unknown(String)

    /// Every documented reason (not ``unknown(_:)``).
    public static let documented: [APNsReason] = [
        .channelNotRegistered, .badChannelId, .missingChannelId, .badExpirationDate, .badPriority,
        .invalidPushType, .missingPushType, .topicDisallowed, .badRequestPayload, .badRequestParams,
        .payloadEmpty, .badMessageId, .featureNotEnabled, .cannotCreateChannelConfig,
        .badCollapseId, .badDeviceToken, .badTopic, .deviceTokenNotForTopic, .duplicateHeaders,
        .idleTimeout, .missingDeviceToken, .missingTopic,
        .badCertificate, .badCertificateEnvironment, .expiredProviderToken, .forbidden,
        .invalidProviderToken, .missingProviderToken, .topicMismatch,
        .badPath, .methodNotAllowed, .expiredToken, .unregistered, .payloadTooLarge,
        .tooManyProviderTokenUpdates, .tooManyRequests, .internalServerError, .serviceUnavailable,
        .shutdown,
    ]

    private static let byRawValue: [String: APNsReason] = Dictionary(
        uniqueKeysWithValues: documented.map { ($0.rawValue, $0) }
    )

    /// Maps a reason string to its case; unrecognised strings become ``unknown(_:)`` verbatim.
    /// Matching is exact (APNs reasons are case-sensitive identifiers).
    public init(rawValue: String) {
        self = APNsReason.byRawValue[rawValue] ?? .unknown(rawValue)
    }

    /// The reason string exactly as APNs sends it.
    public var rawValue: String {
        switch self {
        case .channelNotRegistered: "ChannelNotRegistered"
        case .badChannelId: "BadChannelId"
        case .missingChannelId: "MissingChannelId"
        case .badExpirationDate: "BadExpirationDate"
        case .badPriority: "BadPriority"
        case .invalidPushType: "InvalidPushType"
        case .missingPushType: "MissingPushType"
        case .topicDisallowed: "TopicDisallowed"
        case .badRequestPayload: "BadRequestPayload"
        case .badRequestParams: "BadRequestParams"
        case .payloadEmpty: "PayloadEmpty"
        case .badMessageId: "BadMessageId"
        case .featureNotEnabled: "FeatureNotEnabled"
        case .cannotCreateChannelConfig: "CannotCreateChannelConfig"
        case .badCollapseId: "BadCollapseId"
        case .badDeviceToken: "BadDeviceToken"
        case .badTopic: "BadTopic"
        case .deviceTokenNotForTopic: "DeviceTokenNotForTopic"
        case .duplicateHeaders: "DuplicateHeaders"
        case .idleTimeout: "IdleTimeout"
        case .missingDeviceToken: "MissingDeviceToken"
        case .missingTopic: "MissingTopic"
        case .badCertificate: "BadCertificate"
        case .badCertificateEnvironment: "BadCertificateEnvironment"
        case .expiredProviderToken: "ExpiredProviderToken"
        case .forbidden: "Forbidden"
        case .invalidProviderToken: "InvalidProviderToken"
        case .missingProviderToken: "MissingProviderToken"
        case .topicMismatch: "TopicMismatch"
        case .badPath: "BadPath"
        case .methodNotAllowed: "MethodNotAllowed"
        case .expiredToken: "ExpiredToken"
        case .unregistered: "Unregistered"
        case .payloadTooLarge: "PayloadTooLarge"
        case .tooManyProviderTokenUpdates: "TooManyProviderTokenUpdates"
        case .tooManyRequests: "TooManyRequests"
        case .internalServerError: "InternalServerError"
        case .serviceUnavailable: "ServiceUnavailable"
        case .shutdown: "Shutdown"
        case .unknown(let text): text
        }
    }

    /// The HTTP status Apple documents for this reason; `nil` for ``unknown(_:)``.
    /// The simulator answers with it; the client does not rely on it.
    public var documentedStatus: Int? {
        switch self {
        case .channelNotRegistered, .badChannelId, .missingChannelId, .badExpirationDate, .badPriority,
            .invalidPushType, .missingPushType, .topicDisallowed, .badRequestPayload, .badRequestParams,
            .payloadEmpty, .badMessageId, .featureNotEnabled, .cannotCreateChannelConfig,
            .badCollapseId, .badDeviceToken, .badTopic, .deviceTokenNotForTopic, .duplicateHeaders,
            .idleTimeout, .missingDeviceToken, .missingTopic:
            400
        case .badCertificate, .badCertificateEnvironment, .expiredProviderToken, .forbidden,
            .invalidProviderToken, .missingProviderToken, .topicMismatch:
            403
        case .badPath: 404
        case .methodNotAllowed: 405
        case .expiredToken, .unregistered: 410
        case .payloadTooLarge: 413
        case .tooManyProviderTokenUpdates, .tooManyRequests: 429
        case .internalServerError: 500
        case .serviceUnavailable, .shutdown: 503
        case .unknown: nil
        }
    }

    /// The text shown in logs and error messages.
    public var description: String { rawValue }
}
