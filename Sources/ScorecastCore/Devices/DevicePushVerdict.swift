import APNsCore
/// What to do with a device token after APNs answered a push to it (apns.md §7, §8).
///
/// Pure and total, like ``APNsOutcomeClass``, on which it builds: the device side only adds
/// that `DeviceTokenNotForTopic` also means the token is useless to us (it belongs to another
/// app or push type), and that a retry is only safe when APNs cannot have acted on the push.
public enum DevicePushVerdict: Sendable, Hashable {
    /// Accepted.
    case delivered
    /// The token is dead (`410 Unregistered`, `BadDeviceToken`, `DeviceTokenNotForTopic`,
    /// `ExpiredToken`): drop it and never send to it again; `reason` is APNs' word.
    case pruneToken(reason: String)
    /// Not accepted, and sending again later may work (5xx, 429, provider-token renewals).
    case retry(reason: String)
    /// Refused for good (our request, our credentials or our configuration): `reason` is kept.
    case fail(reason: String)

    /// The verdict on an HTTP answer.
    public static func classify(status: Int, reason: APNsReason?) -> DevicePushVerdict {
        let name = reason?.rawValue ?? "HTTP \(status)"
        if reason == .deviceTokenNotForTopic { return .pruneToken(reason: name) }
        switch APNsOutcomeClass.classify(status: status, reason: reason) {
        case .success: return .delivered
        case .deviceTokenGone: return .pruneToken(reason: name)
        case .retryWithBackoff, .renewTokenAndRetry, .keepTokenAndRetry, .throttled: return .retry(reason: name)
        case .channelGone, .credentialsBroken, .requestMalformed, .configuration: return .fail(reason: name)
        }
    }
}
