/// Why a ``LiveActivityPayload`` cannot be sent to its target. Descriptions name the offending
/// key and, for sizes, the actual and allowed byte counts.
public enum LiveActivityPayloadError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A broadcast can only `update` or `end` an activity (apns.md §3).
    case startNotAllowedForBroadcast
    /// A start-only key (`attributes-type`, `attributes`, `input-push-token`, `input-push-channel`)
    /// on a broadcast or on a non-`start` event.
    case startOnlyKey(String, event: LiveActivityEvent, target: PushTarget)
    /// A key required by a push-to-start is missing (`attributes-type`, `attributes`, `alert`).
    case missingStartKey(String)
    /// `content-state` (or `attributes`) must be a JSON object; the actual type is given.
    case notAnObject(key: String, actualType: String)
    /// `dismissal-date` only applies to `end`.
    case dismissalDateRequiresEnd(event: LiveActivityEvent)
    /// A negative UNIX time in the named key.
    case negativeTime(key: String, value: Int)
    /// An `alert` with neither title nor body.
    case emptyAlert
    /// A number that JSON cannot carry (NaN or infinity) at the given path.
    case nonFiniteNumber(path: String)
    /// The Live Activity data (`content-state` plus `attributes`) exceeds the 4 KB of DLD.
    case liveActivityDataTooLarge(size: Int, limit: Int)
    /// The whole body exceeds the target's limit (5,120 broadcast, 4,096 device).
    case payloadTooLarge(size: Int, limit: Int, target: PushTarget)

    /// The text shown in logs and error messages.
    public var description: String {
        switch self {
        case .startNotAllowedForBroadcast:
            "a broadcast cannot start a Live Activity: event must be update or end"
        case .startOnlyKey(let key, let event, let target):
            "\(key) is only allowed on a push-to-start to a device, not on a \(target) push with event \(event)"
        case .missingStartKey(let key):
            "a push-to-start needs \(key)"
        case .notAnObject(let key, let actualType):
            "\(key) must be a JSON object, got \(actualType)"
        case .dismissalDateRequiresEnd(let event):
            "dismissal-date only applies to event end, not \(event)"
        case .negativeTime(let key, let value):
            "\(key) must be UNIX seconds ≥ 0, got \(value)"
        case .emptyAlert:
            "alert needs a title or a body"
        case .nonFiniteNumber(let path):
            "\(path) is not a finite number"
        case .liveActivityDataTooLarge(let size, let limit):
            "Live Activity data (content-state and attributes) is \(size) bytes, over the \(limit)-byte limit"
        case .payloadTooLarge(let size, let limit, let target):
            "\(target) payload is \(size) bytes, over the \(limit)-byte limit"
        }
    }
}
