import JSON

/// The body of a Live Activity push: `{"aps": {…}}` (apns.md §4, §7).
///
/// Build it with values, then ``encode(for:)`` checks every rule that depends on the target
/// (broadcasts never start, start-only keys, size limits) and returns the exact bytes to send.
/// Keys are written in sorted order, so equal payloads give identical bytes.
public struct LiveActivityPayload: Sendable, Hashable {
    /// The largest Live Activity data (`content-state` + `attributes`) in bytes (DLD: 4 KB).
    public static let liveActivityDataLimit = 4_096

    /// `aps.timestamp`: UNIX seconds of the state shown; the device drops anything older than
    /// what it already shows.
    public var timestamp: Int
    /// `aps.event`.
    public var event: LiveActivityEvent
    /// `aps.content-state`: a JSON object that must decode into the app's `ContentState`.
    public var contentState: JSONValue
    /// `aps.stale-date`: UNIX seconds after which the device shows the data as outdated.
    public var staleDate: Int?
    /// `aps.dismissal-date`: UNIX seconds at which an ended activity leaves the Lock Screen (`end` only).
    public var dismissalDate: Int?
    /// `aps.relevance-score`: orders several activities of one app.
    public var relevanceScore: Double?
    /// `aps.alert`: optional for updates, required for push-to-start.
    public var alert: LiveActivityAlert?
    /// `aps.attributes-type`: the Swift type name of the activity's attributes (start only).
    public var attributesType: String?
    /// `aps.attributes`: the static attributes of a new activity (start only).
    public var attributes: JSONValue?
    /// `aps.input-push-channel`: the broadcast channel a started activity listens to (start only, iOS 18+).
    public var inputPushChannel: String?
    /// `aps.input-push-token: 1`: asks a started activity for its own update token (start only).
    public var inputPushToken: Bool

    /// Creates a payload; nothing is checked until ``encode(for:)``.
    public init(
        timestamp: Int,
        event: LiveActivityEvent,
        contentState: JSONValue,
        staleDate: Int? = nil,
        dismissalDate: Int? = nil,
        relevanceScore: Double? = nil,
        alert: LiveActivityAlert? = nil,
        attributesType: String? = nil,
        attributes: JSONValue? = nil,
        inputPushChannel: String? = nil,
        inputPushToken: Bool = false
    ) {
        self.timestamp = timestamp
        self.event = event
        self.contentState = contentState
        self.staleDate = staleDate
        self.dismissalDate = dismissalDate
        self.relevanceScore = relevanceScore
        self.alert = alert
        self.attributesType = attributesType
        self.attributes = attributes
        self.inputPushChannel = inputPushChannel
        self.inputPushToken = inputPushToken
    }

    /// The start-only keys present, by their JSON names.
    public var startOnlyKeys: [String] {
        var keys: [String] = []
        if attributesType != nil { keys.append("attributes-type") }
        if attributes != nil { keys.append("attributes") }
        if inputPushToken { keys.append("input-push-token") }
        if inputPushChannel != nil { keys.append("input-push-channel") }
        return keys
    }

    /// Checks the payload against the rules of `target` and returns the exact body bytes.
    ///
    /// - Throws: ``LiveActivityPayloadError`` naming the first rule broken; sizes carry the
    ///   actual byte count and the limit.
    public func encode(for target: PushTarget) throws(LiveActivityPayloadError) -> [UInt8] {
        try validate(for: target)
        // The body holds content-state and attributes, so a body within the Live Activity data
        // limit proves their sum is too: most bodies are written once, not twice. Anything else
        // takes the exact checks below, in their order.
        if let body = try? jsonValue.encoded(), body.count <= min(LiveActivityPayload.liveActivityDataLimit, target.payloadLimit) {
            return body
        }
        let stateBytes = try LiveActivityPayload.bytes(of: contentState, path: "$.aps.content-state")
        let attributeBytes = try attributes.map { value throws(LiveActivityPayloadError) in
            try LiveActivityPayload.bytes(of: value, path: "$.aps.attributes")
        }
        let dataSize = stateBytes.count + (attributeBytes?.count ?? 0)
        guard dataSize <= LiveActivityPayload.liveActivityDataLimit else {
            throw .liveActivityDataTooLarge(size: dataSize, limit: LiveActivityPayload.liveActivityDataLimit)
        }
        let body = try LiveActivityPayload.bytes(of: jsonValue, path: "$")
        guard body.count <= target.payloadLimit else {
            throw .payloadTooLarge(size: body.count, limit: target.payloadLimit, target: target)
        }
        return body
    }

    /// The whole body as a JSON value, unchecked.
    public var jsonValue: JSONValue {
        var aps: [String: JSONValue] = [
            "timestamp": .integer(timestamp),
            "event": .string(event.rawValue),
            "content-state": contentState,
        ]
        if let staleDate { aps["stale-date"] = .integer(staleDate) }
        if let dismissalDate { aps["dismissal-date"] = .integer(dismissalDate) }
        if let relevanceScore { aps["relevance-score"] = .double(relevanceScore) }
        if let alert { aps["alert"] = alert.jsonValue }
        if let attributesType { aps["attributes-type"] = .string(attributesType) }
        if let attributes { aps["attributes"] = attributes }
        if let inputPushChannel { aps["input-push-channel"] = .string(inputPushChannel) }
        if inputPushToken { aps["input-push-token"] = .integer(1) }
        return .object(["aps": .object(aps)])
    }

    private func validate(for target: PushTarget) throws(LiveActivityPayloadError) {
        if target == .broadcast, event == .start { throw .startNotAllowedForBroadcast }
        if target == .broadcast || event != .start, let key = startOnlyKeys.first {
            throw .startOnlyKey(key, event: event, target: target)
        }
        if event == .start {
            if attributesType == nil { throw .missingStartKey("attributes-type") }
            if attributes == nil { throw .missingStartKey("attributes") }
            if alert == nil { throw .missingStartKey("alert") }
        }
        guard case .object = contentState else {
            throw .notAnObject(key: "content-state", actualType: contentState.typeName)
        }
        if let attributes, attributes.objectValue == nil {
            throw .notAnObject(key: "attributes", actualType: attributes.typeName)
        }
        if dismissalDate != nil, event != .end { throw .dismissalDateRequiresEnd(event: event) }
        for (key, value) in [("timestamp", timestamp), ("stale-date", staleDate), ("dismissal-date", dismissalDate)] {
            if let value, value < 0 { throw .negativeTime(key: key, value: value) }
        }
        if let relevanceScore, !relevanceScore.isFinite { throw .nonFiniteNumber(path: "$.aps.relevance-score") }
        if let alert, alert.title == nil, alert.body == nil { throw .emptyAlert }
    }

    private static func bytes(of value: JSONValue, path: String) throws(LiveActivityPayloadError) -> [UInt8] {
        do {
            return try value.encoded()
        } catch {
            switch error {
            case .nonFiniteNumber(let inner):
                throw .nonFiniteNumber(path: path + inner.dropFirst())
            }
        }
    }
}
