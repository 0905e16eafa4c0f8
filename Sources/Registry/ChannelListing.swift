import APNsCore
import Foundation
import Postgres
import ScorecastCore

/// A channel with what people need to recognise it: its app's bundle id and environment and
/// the games bound to it. What `channels list`/`show` print.
package struct ChannelListing: Sendable, Hashable {
    /// The channel row.
    package var channel: ChannelRecord
    /// Its app's bundle id.
    package var bundleID: String
    /// Its app's environment.
    package var environment: APNsEnvironment
    /// The games whose updates go to it.
    package var gameIDs: [String]

    /// The columns `init(row:)` reads, for a `channels c JOIN apps a` query.
    static let columns = """
        c.id, c.apns_channel_id, c.app_id, c.storage_policy, c.status, c.last_timestamp, c.created_at, c.deleted_at,
        a.bundle_id, a.environment,
        ARRAY(SELECT b.game_id FROM channel_bindings b WHERE b.channel_id = c.id ORDER BY b.game_id) AS game_ids
        """

    /// Decodes a row selected with `columns`.
    init(row: PostgresRow) throws {
        channel = try ChannelRecord(row: row)
        bundleID = try row.decode("bundle_id")
        let environmentName: String = try row.decode("environment")
        guard let environment = APNsEnvironment(rawValue: environmentName) else {
            throw PostgresError(.decodingFailed, "apps.environment holds an unknown value", column: "environment")
        }
        self.environment = environment
        gameIDs = try row.decode("game_ids", as: [String].self)
    }
}
