import Foundation
import Postgres
import ScorecastCore

/// A new channel gets its game's current state at once: when a channel is created (by
/// `channels create`, `channels ensure`, or the poller re-creating one APNs reported gone) for
/// a game that already has events, one routine outbox row carrying the current state is
/// written in the same transaction, and the workers are woken. Without it a channel created
/// mid-game showed nothing until the game's next event.
struct ChannelSeed {
    let staleness: StalenessPolicy

    /// Writes the seed row of channel `channelID` of `app`, bound to `gameID`, if the game has
    /// events. An app whose content-state mapping cannot render leaves the channel unseeded
    /// (ingest logs the same problem on every event). Returns whether a row was written.
    @discardableResult
    func seed(channelID: Int64, app: AppRecord, gameID: String, on connection: PostgresConnection) async throws -> Bool {
        guard let row = try await connection.query(
            "SELECT id, sport, home_team, away_team, status, state, applied_seq FROM games WHERE id = \(gameID)").first,
            try row.decode("applied_seq", as: Int.self) > 0
        else { return false }
        let state = try EventIngestor.state(of: row)
        let game = GameInfo(sport: try row.decode("sport"), homeName: try row.decode("home_team"), awayName: try row.decode("away_team"))
        guard let settings = try? app.renderSettings(staleness: staleness),
            let update = try? LiveActivityRenderer(settings: settings).renderSnapshot(state: state, game: game, now: Date(), channelLastTimestamp: nil)
        else { return false }
        let written = try await connection.query("""
            WITH seeded AS (
                INSERT INTO outbox (channel_id, payload, payload_timestamp, priority, alerting, event_ids, first_ingested_at, due_at)
                VALUES (\(channelID), convert_to(\(String(decoding: update.body, as: UTF8.self)), 'UTF8'), \(Int64(update.timestamp)),
                        \(Int16(update.priority.rawValue)), false, '{}'::bigint[], now(), now())
                ON CONFLICT (channel_id) DO NOTHING
                RETURNING channel_id
            )
            SELECT channel_id, pg_notify(\(EventIngestor.notificationChannel), '') FROM seeded
            """)
        return !written.isEmpty
    }
}
