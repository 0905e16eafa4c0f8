import LeasedQueue

extension LeasedQueue {
    /// The broadcast outbox: a channel's pending update, one row per channel.
    package static let outbox = LeasedQueue(table: "outbox", alias: "o", key: ["channel_id"])
    /// The token path's pending updates, one row per activity token.
    package static let activityUpdates = LeasedQueue(table: "activity_outbox", alias: "o", key: ["activity_token_id"])
    /// The push-to-starts of a kick-off, one row per device and game.
    package static let activityStarts = LeasedQueue(table: "activity_starts", alias: "s", key: ["device_id", "game_id"])
}
