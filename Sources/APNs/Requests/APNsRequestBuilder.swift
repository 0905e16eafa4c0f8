import APNsCore
import Foundation

/// Builds the HTTP/2 request of each APNs operation exactly as apns.md §2, §3 and §7 describe
/// it, after validating its parts. Pure: the `authorization` value is filled in by the caller,
/// so the same build can be repeated with a renewed token.
struct APNsRequestBuilder: Sendable {
    let sendEndpoint: APNsEndpoint
    let managementEndpoint: APNsEndpoint

    /// A request still missing its `authorization` header value.
    struct Unsigned: Sendable {
        let method: HTTPMethod
        let endpoint: APNsEndpoint
        let path: String
        let headers: [HTTPHeader]
        let body: [UInt8]
        /// Whether a second copy is harmless (see `HTTPRequest.retrySafe`).
        var retrySafe = false

        /// The request with `authorization: <value>` (sent as its first header).
        func signed(authorization: String) -> HTTPRequest {
            HTTPRequest(method: method, endpoint: endpoint, path: path, authorization: authorization, headers: headers, body: body,
                        retrySafe: retrySafe)
        }
    }

    /// `POST /1/apps/<bundleId>/channels` with the storage policy and push type in the body.
    func createChannel(bundleID: String, policy: ChannelStoragePolicy, requestID: UUID?) throws(APNsClientError) -> Unsigned {
        try APNsValidation.checkBundleID(bundleID)
        let body = Array("{\"message-storage-policy\":\(policy.rawValue),\"push-type\":\"LiveActivity\"}".utf8)
        return Unsigned(method: .post, endpoint: managementEndpoint, path: "/1/apps/\(bundleID)/channels",
                        headers: Self.requestIDHeader(requestID), body: body)
    }

    /// `GET /1/apps/<bundleId>/channels` with the id in `apns-channel-id`.
    func readChannel(bundleID: String, channelID: String, requestID: UUID?) throws(APNsClientError) -> Unsigned {
        var request = try channelRequest(.get, bundleID: bundleID, channelID: channelID, requestID: requestID)
        request.retrySafe = true
        return request
    }

    /// `DELETE /1/apps/<bundleId>/channels` with the id in `apns-channel-id`.
    func deleteChannel(bundleID: String, channelID: String, requestID: UUID?) throws(APNsClientError) -> Unsigned {
        try channelRequest(.delete, bundleID: bundleID, channelID: channelID, requestID: requestID)
    }

    /// `GET /1/apps/<bundleId>/all-channels` (not `/channels`).
    func listChannels(bundleID: String, requestID: UUID?) throws(APNsClientError) -> Unsigned {
        try APNsValidation.checkBundleID(bundleID)
        return Unsigned(method: .get, endpoint: managementEndpoint, path: "/1/apps/\(bundleID)/all-channels",
                        headers: Self.requestIDHeader(requestID), body: [], retrySafe: true)
    }

    /// `POST /4/broadcasts/apps/<bundleId>` with channel, push type, priority and expiration
    /// headers, and no `apns-topic` (not part of the broadcast API).
    func broadcast(_ broadcast: Broadcast) throws(APNsClientError) -> Unsigned {
        try APNsValidation.checkBundleID(broadcast.bundleID)
        try APNsValidation.checkChannelID(broadcast.channelID)
        try APNsValidation.checkExpiration(broadcast.expiration)
        try APNsValidation.checkPayload(broadcast.payload, target: .broadcast)
        var headers: [HTTPHeader] = []
        headers.reserveCapacity(5)
        headers.append(HTTPHeader("apns-channel-id", broadcast.channelID))
        headers.append(HTTPHeader("apns-push-type", APNsPushType.liveActivity.rawValue))
        headers.append(HTTPHeader("apns-priority", broadcast.priority.headerValue))
        headers.append(HTTPHeader("apns-expiration", String(broadcast.expiration)))
        if let requestID = broadcast.requestID {
            headers.append(HTTPHeader("apns-request-id", requestID.lowercasedString))
        }
        // At least once: a repeated update carries the same timestamp and the device keeps one.
        return Unsigned(method: .post, endpoint: sendEndpoint, path: "/4/broadcasts/apps/\(broadcast.bundleID)",
                        headers: headers, body: broadcast.payload, retrySafe: true)
    }

    /// `POST /3/device/<token>` with push type, topic, priority and optional expiration and id.
    func devicePush(_ push: DevicePush) throws(APNsClientError) -> Unsigned {
        try APNsValidation.checkDeviceToken(push.token)
        try APNsValidation.checkTopic(push.topic)
        try APNsValidation.checkPushType(push.pushType)
        if let expiration = push.expiration { try APNsValidation.checkExpiration(expiration) }
        try APNsValidation.checkPayload(push.payload, target: .device)
        var headers = [
            HTTPHeader("apns-push-type", push.pushType.rawValue),
            HTTPHeader("apns-topic", push.topic),
            HTTPHeader("apns-priority", push.priority.headerValue),
        ]
        if let expiration = push.expiration { headers.append(HTTPHeader("apns-expiration", String(expiration))) }
        // The device API names its request id `apns-id`.
        if let requestID = push.requestID { headers.append(HTTPHeader("apns-id", requestID.lowercasedString)) }
        return Unsigned(method: .post, endpoint: sendEndpoint, path: "/3/device/\(push.token)", headers: headers,
                        body: push.payload, retrySafe: true)
    }

    private func channelRequest(_ method: HTTPMethod, bundleID: String, channelID: String, requestID: UUID?) throws(APNsClientError) -> Unsigned {
        try APNsValidation.checkBundleID(bundleID)
        try APNsValidation.checkChannelID(channelID)
        return Unsigned(method: method, endpoint: managementEndpoint, path: "/1/apps/\(bundleID)/channels",
                        headers: [HTTPHeader("apns-channel-id", channelID)] + Self.requestIDHeader(requestID), body: [])
    }

    /// `apns-request-id` as a lower-case canonical UUID (apns.md §2).
    private static func requestIDHeader(_ requestID: UUID?) -> [HTTPHeader] {
        requestID.map { [HTTPHeader("apns-request-id", $0.lowercasedString)] } ?? []
    }
}
