import APNsCore
import Foundation

/// One broadcast to a channel: `POST /4/broadcasts/apps/<bundleId>` (apns.md §3).
public struct Broadcast: Sendable, Hashable {
    /// The app's plain bundle id (no `.push-type.liveactivity` suffix).
    public var bundleID: String
    /// The channel id exactly as APNs returned it at creation.
    public var channelID: String
    /// `apns-priority`: 10 costs budget, 5 is opportunistic.
    public var priority: BroadcastPriority
    /// `apns-expiration`, absolute UNIX seconds (not a TTL); must be 0 on a No-Message-Stored
    /// channel. The rule is the caller's (see `ChannelStoragePolicy.expirationHeader`); the
    /// client only requires it to be ≥ 0.
    public var expiration: Int
    /// The JSON body, at most 5,120 bytes.
    public var payload: [UInt8]
    /// An optional `apns-request-id`, echoed back by APNs.
    public var requestID: UUID?

    /// Creates a broadcast from ready body bytes.
    public init(bundleID: String, channelID: String, priority: BroadcastPriority, expiration: Int,
                payload: [UInt8], requestID: UUID? = nil) {
        self.bundleID = bundleID
        self.channelID = channelID
        self.priority = priority
        self.expiration = expiration
        self.payload = payload
        self.requestID = requestID
    }

    /// Creates a broadcast from a Live Activity payload, checked and encoded for a broadcast.
    /// - Throws: `LiveActivityPayloadError` (a `start` event, a start-only key, over 5,120 bytes…).
    public init(bundleID: String, channelID: String, priority: BroadcastPriority, expiration: Int,
                payload: LiveActivityPayload, requestID: UUID? = nil) throws(LiveActivityPayloadError) {
        self.init(bundleID: bundleID, channelID: channelID, priority: priority, expiration: expiration,
                  payload: try payload.encode(for: .broadcast), requestID: requestID)
    }
}
