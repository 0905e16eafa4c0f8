/// A message received on a channel this session listens to (`NOTIFY channel, 'payload'`).
public struct PostgresNotification: Sendable, Equatable {
    /// The channel name.
    public var channel: String
    /// The payload (empty when none was given).
    public var payload: String
    /// The server process that sent it.
    public var backendPID: Int32

    /// Creates a notification.
    public init(channel: String, payload: String, backendPID: Int32) {
        self.channel = channel
        self.payload = payload
        self.backendPID = backendPID
    }
}

/// What a `LISTEN` subscription yields (``PostgresPool/listen(_:)``).
///
/// Notifications are not queued for a session that is not listening: one sent before the
/// subscription became active, or while its connection was down, is gone. ``listening`` marks
/// the moment from which every notification arrives, so a consumer that looks at the state
/// itself on ``listening`` misses nothing: what was announced before is found by that look,
/// what is announced after arrives.
public enum PostgresListenEvent: Sendable, Equatable {
    /// The subscription is active: on the first `LISTEN`, and again after every reconnect.
    case listening
    /// A notification on the channel.
    case notification(PostgresNotification)
}
