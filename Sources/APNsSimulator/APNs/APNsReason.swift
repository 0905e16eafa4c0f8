/// The failure reasons the simulator answers with, spelled as Apple documents them (apns.md §8,
/// and Apple's "Handling error responses from APNs" for device-push reasons), with their status.
///
/// Kept apart from any client-side model on purpose: the simulator's reading of Apple's documents
/// must not inherit a client bug.
enum APNsReason: String, Error, Sendable, CaseIterable {
    // 400: the request itself is wrong.
    case badChannelId = "BadChannelId"
    case missingChannelId = "MissingChannelId"
    case channelNotRegistered = "ChannelNotRegistered"
    case badExpirationDate = "BadExpirationDate"
    case badPriority = "BadPriority"
    case invalidPushType = "InvalidPushType"
    case missingPushType = "MissingPushType"
    case topicDisallowed = "TopicDisallowed"
    case badRequestPayload = "BadRequestPayload"
    case badRequestParams = "BadRequestParams"
    case payloadEmpty = "PayloadEmpty"
    case badMessageId = "BadMessageId"
    case cannotCreateChannelConfig = "CannotCreateChannelConfig"
    case badDeviceToken = "BadDeviceToken"
    case missingDeviceToken = "MissingDeviceToken"
    case missingTopic = "MissingTopic"
    case badCollapseId = "BadCollapseId"
    /// Chosen for a `liveactivity` device push whose topic lacks `.push-type.liveactivity`:
    /// a push-to-start token belongs to the suffixed topic. Apple does not document which
    /// reason that case gets (unconfirmed).
    case deviceTokenNotForTopic = "DeviceTokenNotForTopic"
    // 403: credentials.
    case expiredProviderToken = "ExpiredProviderToken"
    case invalidProviderToken = "InvalidProviderToken"
    case missingProviderToken = "MissingProviderToken"
    case topicMismatch = "TopicMismatch"
    // 404, 405, 410, 413.
    case badPath = "BadPath"
    case methodNotAllowed = "MethodNotAllowed"
    case unregistered = "Unregistered"
    case payloadTooLarge = "PayloadTooLarge"
    // 429.
    case tooManyRequests = "TooManyRequests"
    case tooManyProviderTokenUpdates = "TooManyProviderTokenUpdates"
    // 500, 503.
    case internalServerError = "InternalServerError"
    case serviceUnavailable = "ServiceUnavailable"

    /// The HTTP status APNs pairs with the reason.
    var status: Int {
        switch self {
        case .expiredProviderToken, .invalidProviderToken, .missingProviderToken, .topicMismatch: 403
        case .badPath: 404
        case .methodNotAllowed: 405
        case .unregistered: 410
        case .payloadTooLarge: 413
        case .tooManyRequests, .tooManyProviderTokenUpdates: 429
        case .internalServerError: 500
        case .serviceUnavailable: 503
        default: 400
        }
    }

    /// The `{"reason":"…"}` body.
    var body: [UInt8] { Array("{\"reason\":\"\(rawValue)\"}".utf8) }
}
