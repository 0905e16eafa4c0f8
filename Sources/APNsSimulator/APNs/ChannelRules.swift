import JSON

/// The rules of channel management requests (apns.md §2). Pure.
enum ChannelRules {
    /// Reads the create body `{"message-storage-policy": 0|1, "push-type": "LiveActivity"}`.
    static func createBody(_ body: [UInt8], length: Int) -> Result<MessageStoragePolicy, APNsReason> {
        if length == 0 { return .failure(.payloadEmpty) }
        guard length <= H2Connection.storedBodyLimit, let object = (try? JSONParser().parse(body))?.objectValue else {
            return .failure(.badRequestPayload)
        }
        guard let pushType = object["push-type"] else { return .failure(.missingPushType) }
        guard pushType.stringValue == "LiveActivity" else { return .failure(.invalidPushType) }
        guard let policy = object["message-storage-policy"]?.integerValue.flatMap(MessageStoragePolicy.init(rawValue:)) else {
            return .failure(.badRequestParams)
        }
        return .success(policy)
    }

    /// The channel id header of read and delete: `MissingChannelId` or `BadChannelId` when wrong.
    static func channelID(of request: H2Request) -> Result<String, APNsReason> {
        guard let id = request.header("apns-channel-id"), !id.isEmpty else { return .failure(.missingChannelId) }
        guard Identifiers.isWellFormedChannelID(id) else { return .failure(.badChannelId) }
        return .success(id)
    }

    /// The read answer body.
    static func readBody(_ record: ChannelRecord) -> [UInt8] {
        Array("{\"message-storage-policy\":\(record.policy.rawValue),\"push-type\":\"LiveActivity\"}".utf8)
    }

    /// The list answer body.
    static func listBody(_ ids: [String]) -> [UInt8] {
        // Ids are base64 (no characters that need escaping in JSON).
        Array(("{\"channels\":[" + ids.map { "\"\($0)\"" }.joined(separator: ",") + "]}").utf8)
    }
}
