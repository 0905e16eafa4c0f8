/// What to do about one APNs answer: the classification of apns.md §8.
///
/// Pure and total: every status and reason (documented or not) maps to one class, so the
/// delivery logic never meets an unhandled response.
public enum APNsOutcomeClass: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// 2xx: accepted by APNs.
    case success
    /// 5xx, `IdleTimeout`, transport failures: retry with exponential backoff and jitter, on a
    /// fresh connection when ``wantsFreshConnection(status:reason:)`` says so.
    case retryWithBackoff
    /// 403 `ExpiredProviderToken`: make a new provider token, then retry once.
    case renewTokenAndRetry
    /// 429 `TooManyProviderTokenUpdates`: keep the current token (do not renew) and retry.
    case keepTokenAndRetry
    /// 400 `ChannelNotRegistered`: mark the channel gone, cancel its pending work, never retry.
    case channelGone
    /// 400 `BadDeviceToken`, 410 `Unregistered` / `ExpiredToken`: forget this device token.
    case deviceTokenGone
    /// 403 credential errors: stop this app's sends and alert; no hammering.
    case credentialsBroken
    /// Our bug (malformed request, wrong path, payload too large): fail, never retry, count by reason.
    case requestMalformed
    /// 400 `FeatureNotEnabled`, `CannotCreateChannelConfig`: app or account configuration; fail and alert.
    case configuration
    /// 429 `TooManyRequests`: back off (honouring `Retry-After`), shrink the budget, coalesce.
    case throttled

    /// Whether the answer is worth sending again (after a wait, a new token, or as is).
    public var isRetryable: Bool {
        switch self {
        case .retryWithBackoff, .renewTokenAndRetry, .keepTokenAndRetry, .throttled: true
        case .success, .channelGone, .deviceTokenGone, .credentialsBroken, .requestMalformed, .configuration: false
        }
    }

    /// The text shown in logs and error messages.
    public var description: String { rawValue }

    /// Classifies an HTTP answer from APNs.
    ///
    /// Order of rules: any 2xx is ``success``; a documented reason decides by itself (it is more
    /// specific than its status); an unknown or missing reason is handled by its status class:
    /// 403 → credentials, 410 → device token gone, 429 → throttled, 5xx and 408 → retry, any
    /// other status → malformed (a status we cannot explain is not worth hammering).
    public static func classify(status: Int, reason: APNsReason?) -> APNsOutcomeClass {
        if (200..<300).contains(status) { return .success }
        if let reason, let byReason = classify(reason: reason) { return byReason }
        return classify(status: status)
    }

    /// Classifies a send that never got an HTTP answer: always ``retryWithBackoff``.
    public static func classify(transport failure: APNsTransportFailure) -> APNsOutcomeClass {
        switch failure {
        case .timeout, .connectionReset, .goAwayUnprocessed, .streamReset, .connectFailed:
            .retryWithBackoff
        }
    }

    /// Whether the retry should go out on a new connection (500 / 503 and `Shutdown`, apns.md §8;
    /// `IdleTimeout` because the server considers the connection dead).
    public static func wantsFreshConnection(status: Int, reason: APNsReason?) -> Bool {
        switch reason {
        case .shutdown?, .idleTimeout?, .internalServerError?, .serviceUnavailable?:
            return true
        default:
            return status == 500 || status == 503
        }
    }

    /// The class of a documented reason; `nil` for ``APNsReason/unknown(_:)``.
    static func classify(reason: APNsReason) -> APNsOutcomeClass? {
        switch reason {
        case .channelNotRegistered:
            return .channelGone
        case .badChannelId, .missingChannelId, .badExpirationDate, .badPriority, .invalidPushType,
            .missingPushType, .topicDisallowed, .badRequestPayload, .badRequestParams, .payloadEmpty,
            .badMessageId, .badCollapseId, .badTopic, .duplicateHeaders, .missingDeviceToken,
            .missingTopic, .badPath, .methodNotAllowed, .payloadTooLarge:
            return .requestMalformed
        case .deviceTokenNotForTopic:
            // The token belongs to another app's topic: it will never work for this one.
            return .deviceTokenGone
        case .featureNotEnabled, .cannotCreateChannelConfig:
            return .configuration
        case .expiredProviderToken:
            return .renewTokenAndRetry
        case .invalidProviderToken, .missingProviderToken, .topicMismatch, .badCertificate,
            .badCertificateEnvironment, .forbidden:
            return .credentialsBroken
        case .badDeviceToken, .unregistered, .expiredToken:
            return .deviceTokenGone
        case .tooManyProviderTokenUpdates:
            return .keepTokenAndRetry
        case .tooManyRequests:
            return .throttled
        case .internalServerError, .serviceUnavailable, .shutdown, .idleTimeout:
            return .retryWithBackoff
        case .unknown:
            return nil
        }
    }

    /// The class of a status with no usable reason.
    static func classify(status: Int) -> APNsOutcomeClass {
        switch status {
        case 200..<300: .success
        case 403: .credentialsBroken
        case 410: .deviceTokenGone
        case 429: .throttled
        case 408, 500..<600: .retryWithBackoff
        default: .requestMalformed
        }
    }
}
