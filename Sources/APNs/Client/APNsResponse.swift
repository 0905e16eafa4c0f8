import APNsCore
import JSON

/// APNs's answer to one request, success or failure: the status, the `reason` of a failure, the
/// identifying headers, and how long it took. A request that got no answer throws
/// `APNsClientError` instead.
public struct APNsResponse: Sendable, Hashable {
    /// The HTTP status (200, 201, 204, 400, 403, 410, 429, 500, 503…).
    public let status: Int
    /// The `reason` of a failure body `{"reason": …}`; `nil` on success or without a JSON body.
    public let reason: APNsReason?
    /// `apns-request-id` (`apns-id` on the device API).
    public let requestID: String?
    /// `apns-unique-id`, sent with a successful broadcast.
    public let uniqueID: String?
    /// `apns-channel-id`, sent by a successful channel creation.
    public let channelID: String?
    /// `Retry-After`, verbatim, when present.
    public let retryAfter: String?
    /// The `timestamp` of a 410 body (when the token stopped being valid), when present.
    public let timestamp: Int?
    /// From handing the request to the connection until the last byte of the answer.
    public let latency: Duration
    /// The body bytes (empty on most successes).
    public let body: [UInt8]
    /// How many new connections the request needed (0 when it reused one); for tests.
    var connectionsOpened = 0

    /// Creates a response (the client builds these from the wire; tests may build their own).
    public init(status: Int, reason: APNsReason?, requestID: String?, uniqueID: String?, channelID: String?,
                retryAfter: String?, timestamp: Int?, latency: Duration, body: [UInt8]) {
        self.status = status
        self.reason = reason
        self.requestID = requestID
        self.uniqueID = uniqueID
        self.channelID = channelID
        self.retryAfter = retryAfter
        self.timestamp = timestamp
        self.latency = latency
        self.body = body
    }

    /// Any 2xx (apns.md §2).
    public var isSuccess: Bool { (200..<300).contains(status) }

    /// What to do about this answer (apns.md §8), from the core's classification.
    public var outcome: APNsOutcomeClass { APNsOutcomeClass.classify(status: status, reason: reason) }

    /// Whether a retry should use a fresh connection (500 / 503 / `Shutdown`).
    public var wantsFreshConnection: Bool { APNsOutcomeClass.wantsFreshConnection(status: status, reason: reason) }

    /// `Retry-After` in seconds when it is given as a number of seconds (the HTTP-date form
    /// yields `nil`; read ``retryAfter`` for it).
    public var retryAfterSeconds: Int? {
        guard let retryAfter, let seconds = Int(retryAfter.trimmingASCIISpaces()), seconds >= 0 else { return nil }
        return seconds
    }

    /// The configuration in a successful read-channel body, or `nil` if the body is not one.
    public var channelConfiguration: ChannelConfiguration? {
        guard isSuccess, let object = Self.jsonObject(body),
              let rawPolicy = object["message-storage-policy"]?.integerValue,
              let policy = ChannelStoragePolicy(rawValue: rawPolicy) else { return nil }
        return ChannelConfiguration(storagePolicy: policy, pushType: object["push-type"]?.stringValue ?? "")
    }

    /// The channel ids of a successful list body `{"channels": [...]}`, or `nil` if the body is not one.
    public var channelIDs: [String]? {
        guard isSuccess, let channels = Self.jsonObject(body)?["channels"]?.arrayValue else { return nil }
        let ids = channels.compactMap(\.stringValue)
        return ids.count == channels.count ? ids : nil
    }

    /// Builds a response from the wire: parses `reason` and `timestamp` out of a failure body.
    static func parse(_ response: HTTPResponse) -> APNsResponse {
        let success = (200..<300).contains(response.status)
        let object = success ? nil : jsonObject(response.body)
        var parsed = APNsResponse(
            status: response.status,
            reason: object?["reason"]?.stringValue.map(APNsReason.init(rawValue:)),
            requestID: response.headers.requestID ?? response.headers.apnsID,
            uniqueID: response.headers.uniqueID,
            channelID: response.headers.channelID,
            retryAfter: response.headers.retryAfter,
            timestamp: object?["timestamp"]?.integerValue,
            latency: response.latency,
            body: response.body)
        parsed.connectionsOpened = response.connectionsOpened
        return parsed
    }

    private static func jsonObject(_ body: [UInt8]) -> [String: JSONValue]? {
        guard !body.isEmpty, let value = try? JSONParser().parse(body) else { return nil }
        return value.objectValue
    }
}

/// A channel's settings as read back from APNs.
public struct ChannelConfiguration: Sendable, Hashable {
    /// The storage policy fixed at creation.
    public let storagePolicy: ChannelStoragePolicy
    /// The push type, `LiveActivity`.
    public let pushType: String

    /// Creates a configuration.
    public init(storagePolicy: ChannelStoragePolicy, pushType: String) {
        self.storagePolicy = storagePolicy
        self.pushType = pushType
    }
}

extension String {
    fileprivate func trimmingASCIISpaces() -> Substring {
        var text = Substring(self)
        while text.first == " " || text.first == "\t" { text.removeFirst() }
        while text.last == " " || text.last == "\t" { text.removeLast() }
        return text
    }
}
