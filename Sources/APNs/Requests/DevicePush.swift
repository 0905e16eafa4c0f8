import APNsCore
import Foundation

/// One push to a device token: `POST /3/device/<token>` (apns.md §7), e.g. a push-to-start.
public struct DevicePush: Sendable, Hashable {
    /// The device (or push-to-start) token, hexadecimal.
    public var token: String
    /// `apns-topic`: for Live Activities `<bundleId>.push-type.liveactivity`.
    public var topic: String
    /// `apns-push-type`.
    public var pushType: APNsPushType
    /// `apns-priority`.
    public var priority: BroadcastPriority
    /// `apns-expiration` in UNIX seconds, or `nil` to leave the header out.
    public var expiration: Int?
    /// The JSON body, at most 4,096 bytes.
    public var payload: [UInt8]
    /// An optional `apns-id` (the device API's request id), echoed back by APNs.
    public var requestID: UUID?

    /// Creates a device push from ready body bytes.
    public init(token: String, topic: String, pushType: APNsPushType, priority: BroadcastPriority,
                expiration: Int? = nil, payload: [UInt8], requestID: UUID? = nil) {
        self.token = token
        self.topic = topic
        self.pushType = pushType
        self.priority = priority
        self.expiration = expiration
        self.payload = payload
        self.requestID = requestID
    }

    /// Creates a Live Activity device push (topic `<bundleId>.push-type.liveactivity`, push type
    /// `liveactivity`) from a payload checked and encoded for a device.
    /// - Throws: `LiveActivityPayloadError` (missing start keys, over 4,096 bytes…).
    public init(liveActivityToken token: String, bundleID: String, priority: BroadcastPriority,
                expiration: Int? = nil, payload: LiveActivityPayload, requestID: UUID? = nil) throws(LiveActivityPayloadError) {
        self.init(token: token, topic: bundleID + APNsValidation.liveActivityTopicSuffix, pushType: .liveActivity,
                  priority: priority, expiration: expiration, payload: try payload.encode(for: .device), requestID: requestID)
    }
}
