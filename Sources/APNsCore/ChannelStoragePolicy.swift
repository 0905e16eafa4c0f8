/// A broadcast channel's `message-storage-policy`, fixed when the channel is created (apns.md §2).
public enum ChannelStoragePolicy: Int, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// 0: nothing stored for offline devices; higher publishing budget; `apns-expiration` must be 0.
    case noMessageStored = 0
    /// 1: the most recent message is kept up to 8 hours for offline devices.
    case mostRecentMessageStored = 1

    /// The longest `apns-expiration` offset APNs accepts on a channel with this policy, in seconds.
    public var maximumExpirationOffset: Int {
        switch self {
        case .noMessageStored: 0
        case .mostRecentMessageStored: 8 * 3600
        }
    }

    /// The `apns-expiration` header value for a send at `now` (UNIX seconds) that should be kept
    /// `desiredOffset` seconds: always 0 on No Message Stored; clamped to now+8h on Most Recent.
    public func expirationHeader(now: Int, desiredOffset: Int) -> Int {
        switch self {
        case .noMessageStored:
            0
        case .mostRecentMessageStored:
            desiredOffset <= 0 ? 0 : now + min(desiredOffset, maximumExpirationOffset)
        }
    }

    /// The text shown in logs and error messages.
    public var description: String {
        switch self {
        case .noMessageStored: "no-message-stored"
        case .mostRecentMessageStored: "most-recent-message-stored"
        }
    }
}
