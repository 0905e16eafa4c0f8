import JSON

/// The header and payload rules of `POST /4/broadcasts/apps/<bundleId>` (apns.md §3). Pure.
enum BroadcastRules {
    /// The broadcast payload limit in bytes.
    static let payloadLimit = 5120
    /// How far ahead a Most-Recent-Message channel may set `apns-expiration` (8 hours).
    static let maximumStorage: Double = 8 * 3600
    /// The path suffix APNs refuses on broadcasts (`TopicDisallowed`).
    static let liveActivitySuffix = ".push-type.liveactivity"

    /// The headers of a valid broadcast.
    struct Headers: Equatable {
        let channelID: String
        let priority: Int
        let expiration: Int
    }

    /// Reads and checks the broadcast headers; the reason names the first rule broken.
    static func headers(of request: H2Request, allowsPriorityOne: Bool) -> Result<Headers, APNsReason> {
        guard let channelID = request.header("apns-channel-id"), !channelID.isEmpty else { return .failure(.missingChannelId) }
        guard Identifiers.isWellFormedChannelID(channelID) else { return .failure(.badChannelId) }
        guard let pushType = request.header("apns-push-type"), !pushType.isEmpty else { return .failure(.missingPushType) }
        guard pushType == "liveactivity" else { return .failure(.invalidPushType) }
        guard let priorityText = request.header("apns-priority"), let priority = Int(priorityText),
              priority == 10 || priority == 5 || (priority == 1 && allowsPriorityOne) else {
            return .failure(.badPriority)
        }
        guard let expirationText = request.header("apns-expiration"), let expiration = Int(expirationText), expiration >= 0 else {
            return .failure(.badExpirationDate)
        }
        return .success(Headers(channelID: channelID, priority: priority, expiration: expiration))
    }

    /// `BadExpirationDate` unless `expiration` suits the channel: exactly 0 on No-Message-Stored,
    /// at most now + 8 h on Most-Recent-Message-Stored (0 and past times allowed).
    static func checkExpiration(_ expiration: Int, policy: MessageStoragePolicy, now: Double) -> APNsReason? {
        switch policy {
        case .noMessageStored:
            return expiration == 0 ? nil : .badExpirationDate
        case .mostRecentMessageStored:
            return Double(expiration) <= now + maximumStorage ? nil : .badExpirationDate
        }
    }

    /// `PayloadEmpty`, `PayloadTooLarge` or `BadRequestPayload` for a body APNs refuses.
    static func checkPayload(_ body: [UInt8], length: Int, limit: Int = payloadLimit) -> APNsReason? {
        if length == 0 { return .payloadEmpty }
        if length > limit { return .payloadTooLarge }
        return (try? JSONParser().parse(body))?.objectValue == nil ? .badRequestPayload : nil
    }
}
