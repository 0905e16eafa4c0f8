import Foundation
import Postgres

/// The active channels of games for one app, by tier: what a device subscribes to, and what a
/// push-to-start names as `input-push-channel`.
package struct GameChannels: Sendable, Hashable {
    /// The standard channel (every update), if the game has one for the app.
    package var standard: String?
    /// The light channel (frequent updates off), if any.
    package var light: String?

    /// The channel for a device: the light one when frequent updates are off and it exists.
    package func channel(frequentUpdates: Bool) -> (id: String, tier: String)? {
        if !frequentUpdates, let light { return (light, "light") }
        if let standard { return (standard, "standard") }
        return light.map { ($0, "light") }
    }

    /// The channels of `gameIDs` for the app `appID`, keyed by game (the oldest active channel
    /// of each tier wins).
    static func read(gameIDs: [String], appID: Int64, pool: PostgresPool) async throws -> [String: GameChannels] {
        guard !gameIDs.isEmpty else { return [:] }
        var result: [String: GameChannels] = [:]
        for row in try await pool.query("""
            SELECT b.game_id, b.tier, c.apns_channel_id
            FROM channel_bindings b JOIN channels c ON c.id = b.channel_id
            WHERE b.game_id = ANY(\(gameIDs)) AND c.app_id = \(appID) AND c.status = 'active'
            ORDER BY c.id DESC
            """) {
            let gameID: String = try row.decode("game_id")
            let tier: String = try row.decode("tier")
            let channelID: String = try row.decode("apns_channel_id")
            var channels = result[gameID] ?? GameChannels()
            if tier == "light" { channels.light = channelID } else { channels.standard = channelID }
            result[gameID] = channels
        }
        return result
    }

    /// Creates channels.
    package init(standard: String? = nil, light: String? = nil) {
        self.standard = standard
        self.light = light
    }
}
