import APNsCore
import Foundation
import Postgres
import ScorecastCore

/// One row of `channels`: an APNs broadcast channel of one app.
package struct ChannelRecord: Sendable, Hashable {
    /// The lifecycle states of a channel (the `channels.status` check constraint).
    package enum Status: String, Sendable, CaseIterable {
        /// In use: updates are sent to it.
        case active
        /// Its game ended; deletion at APNs is pending.
        case retiring
        /// Deleted at APNs by scorecast.
        case deleted
        /// APNs answered ChannelNotRegistered: deleted behind scorecast's back.
        case gone
    }

    package var id: Int64
    /// APNs' opaque channel id, byte for byte.
    package var apnsChannelID: String
    package var appID: Int64
    package var storagePolicy: ChannelStoragePolicy
    package var status: Status
    /// The newest payload timestamp sent (timestamps never go backwards).
    package var lastTimestamp: Int64
    package var createdAt: Date
    package var deletedAt: Date?

    /// The columns `init(row:)` reads.
    package static let columns = "id, apns_channel_id, app_id, storage_policy, status, last_timestamp, created_at, deleted_at"

    /// Decodes a row selected with `columns`.
    package init(row: PostgresRow) throws {
        id = try row.decode("id")
        apnsChannelID = try row.decode("apns_channel_id")
        appID = try row.decode("app_id")
        let policy: Int = try row.decode("storage_policy")
        storagePolicy = policy == 1 ? .mostRecentMessageStored : .noMessageStored
        let statusName: String = try row.decode("status")
        guard let status = Status(rawValue: statusName) else {
            throw PostgresError(.decodingFailed, "channels.status holds an unknown value", column: "status")
        }
        self.status = status
        lastTimestamp = try row.decode("last_timestamp")
        createdAt = try row.decode("created_at")
        deletedAt = try row.decode("deleted_at", as: Date?.self)
    }
}
