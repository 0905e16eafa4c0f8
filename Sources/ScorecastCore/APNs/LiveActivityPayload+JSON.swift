import APNsCore
import JSON

extension LiveActivityPayload {
    /// Reads a body in the shape ``jsonValue`` writes (`{"aps": {…}}`), for payloads stored in the
    /// outbox or received by the simulator. Unknown `aps` keys are refused; rules that depend on
    /// the target are left to ``encode(for:)``.
    public init(jsonValue: JSONValue) throws(StoredValueError) {
        func fail(_ problem: String) -> StoredValueError {
            StoredValueError(subject: "Live Activity payload", problem: problem)
        }
        guard let root = jsonValue.objectValue, let aps = root["aps"]?.objectValue else { throw fail("aps must be an object") }
        let known: Set<String> = [
            "timestamp", "event", "content-state", "stale-date", "dismissal-date", "relevance-score", "alert",
            "attributes-type", "attributes", "input-push-channel", "input-push-token",
        ]
        if let unknown = JSONValue.sortedKeys(aps).first(where: { !known.contains($0) }) {
            throw fail("unknown key aps.\(unknown.prefix(64))")
        }
        guard let timestamp = aps["timestamp"]?.integerValue else { throw fail("aps.timestamp must be an integer") }
        guard let event = aps["event"]?.stringValue.flatMap(LiveActivityEvent.init(rawValue:)) else {
            throw fail("aps.event must be start, update or end")
        }
        guard let contentState = aps["content-state"] else { throw fail("aps.content-state is required") }

        func optionalInteger(_ key: String) throws(StoredValueError) -> Int? {
            guard let value = aps[key] else { return nil }
            guard let number = value.integerValue else { throw fail("aps.\(key) must be an integer") }
            return number
        }
        func optionalString(_ key: String) throws(StoredValueError) -> String? {
            guard let value = aps[key] else { return nil }
            guard let text = value.stringValue else { throw fail("aps.\(key) must be a string") }
            return text
        }
        var relevance: Double?
        if let value = aps["relevance-score"] {
            guard let number = value.doubleValue else { throw fail("aps.relevance-score must be a number") }
            relevance = number
        }
        var alert: LiveActivityAlert?
        if let value = aps["alert"] {
            alert = try Self.alert(from: value, fail: fail)
        }
        var inputPushToken = false
        if let value = aps["input-push-token"] {
            guard value.integerValue == 1 else { throw fail("aps.input-push-token must be 1") }
            inputPushToken = true
        }
        self.init(
            timestamp: timestamp, event: event, contentState: contentState,
            staleDate: try optionalInteger("stale-date"), dismissalDate: try optionalInteger("dismissal-date"),
            relevanceScore: relevance, alert: alert,
            attributesType: try optionalString("attributes-type"), attributes: aps["attributes"],
            inputPushChannel: try optionalString("input-push-channel"), inputPushToken: inputPushToken
        )
    }

    /// Reads an `aps.alert` object (also the alerts queued in the outbox, ``QueuedAlert``).
    public static func alert(from value: JSONValue, fail: (String) -> StoredValueError) throws(StoredValueError) -> LiveActivityAlert {
        guard let members = value.objectValue else { throw fail("aps.alert must be an object") }
        if let unknown = JSONValue.sortedKeys(members).first(where: { !["title", "body", "sound"].contains($0) }) {
            throw fail("unknown key aps.alert.\(unknown.prefix(64))")
        }
        func text(_ key: String) throws(StoredValueError) -> AlertText? {
            guard let value = members[key] else { return nil }
            if let plain = value.stringValue { return .plain(plain) }
            guard let object = value.objectValue, let locKey = object["loc-key"]?.stringValue else {
                throw fail("aps.alert.\(key) must be a string or {loc-key, loc-args}")
            }
            let arguments = object["loc-args"]?.arrayValue ?? []
            let texts = arguments.compactMap(\.stringValue)
            guard texts.count == arguments.count, object.count <= 2 else {
                throw fail("aps.alert.\(key).loc-args must be an array of strings")
            }
            return .localized(key: locKey, arguments: texts)
        }
        var sound: String?
        if let value = members["sound"] {
            guard let name = value.stringValue else { throw fail("aps.alert.sound must be a string") }
            sound = name
        }
        return LiveActivityAlert(title: try text("title"), body: try text("body"), sound: sound)
    }
}
