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
