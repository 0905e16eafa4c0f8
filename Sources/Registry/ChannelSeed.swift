import Clocks
import DeliveryEngine
import Foundation
import JSON
import Postgres
import ScorecastCore

/// A new channel gets its game's current state at once: when a channel is created (by
/// `channels create`, `channels ensure`, or the poller re-creating one APNs reported gone) for
/// a game that already has events, one outbox row carrying the current state is written in the
/// same transaction, and the workers are woken. Without it a channel created mid-game showed
/// nothing until the game's next event.
///
/// The row also adopts the alerts that channels of the same app and game left behind when APNs
/// said they were gone (``OutboxSettlement/Action/cancelChannel``): they were never
/// accepted, so they go on the new channel, in their order, once (their old rows are deleted in
/// the same transaction). With alerts the seed is alerting, at priority 10; without, routine.
struct ChannelSeed {
    let staleness: StalenessPolicy
    /// The seed is rendered, and falls due, at this clock's time (the workers claim by it).
    let clock: any ServiceClock

    /// Writes the seed row of channel `channelID` of `app`, bound to `gameID`, if the game has
    /// events. An app whose content-state mapping cannot render leaves the channel unseeded
    /// (ingest logs the same problem on every event; gone channels keep their alerts). Returns
    /// whether a row was written.
    @discardableResult
    func seed(channelID: Int64, app: AppRecord, gameID: String, on connection: PostgresConnection) async throws -> Bool {
        guard let row = try await connection.query(
            "SELECT id, sport, home_team, away_team, status, state, applied_seq FROM games WHERE id = \(gameID)").first,
            try row.decode("applied_seq", as: Int.self) > 0
        else { return false }
        let state = try EventIngestor.state(of: row)
        let game = GameInfo(sport: try row.decode("sport"), homeName: try row.decode("home_team"), awayName: try row.decode("away_team"))
        let now = clock.now()
        guard let settings = try? app.renderSettings(staleness: staleness),
            let update = try? LiveActivityRenderer(settings: settings).renderSnapshot(state: state, game: game, now: now, channelLastTimestamp: nil)
        else { return false }
        let (leftBehind, alerts) = try await alertsLeftBehind(appID: app.id, gameID: gameID, on: connection)
        let priority = alerts.isEmpty ? update.priority : .immediate
        let written = try await connection.query("""
            WITH adopted AS (
                DELETE FROM outbox WHERE channel_id = ANY(\(leftBehind))
            ), seeded AS (
                INSERT INTO outbox (channel_id, payload, payload_timestamp, priority, alerting, alerts, event_ids, first_ingested_at, due_at)
                VALUES (\(channelID), convert_to(\(String(decoding: update.body, as: UTF8.self)), 'UTF8'), \(Int64(update.timestamp)),
                        \(Int16(priority.rawValue)), \(!alerts.isEmpty), \(QueuedAlert.encodedQueue(alerts))::jsonb, '{}'::bigint[],
                        \(now), \(now))
                ON CONFLICT (channel_id) DO NOTHING
                RETURNING channel_id
            )
            SELECT channel_id, pg_notify(\(EventIngestor.notificationChannel), '') FROM seeded
            """)
        return !written.isEmpty
    }

    /// The outbox rows that gone channels of `appID` bound to `gameID` keep for their alerts
    /// (locked), and those alerts: oldest channel first, each queue in its order, an alert
    /// queued on two of them once.
    private func alertsLeftBehind(
        appID: Int64, gameID: String, on connection: PostgresConnection
    ) async throws -> (channels: [Int64], alerts: [QueuedAlert]) {
        let rows = try await connection.query("""
            SELECT o.channel_id, o.alerts FROM outbox o
            JOIN channels c ON c.id = o.channel_id
            JOIN channel_bindings b ON b.channel_id = o.channel_id
            WHERE c.app_id = \(appID) AND c.status = 'gone' AND b.game_id = \(gameID) AND o.alerts <> '[]'::jsonb
            ORDER BY o.channel_id
            FOR UPDATE OF o
            """)
        var channels: [Int64] = []
        var alerts: [QueuedAlert] = []
        var keys = Set<String>()
        for row in rows {
            channels.append(try row.decode("channel_id"))
            let queue = try QueuedAlert.queue(from: try JSONParser().parse(try row.decode("alerts", as: PostgresJSON.self).bytes))
            for alert in queue where keys.insert(alert.key).inserted { alerts.append(alert) }
        }
        return (channels, alerts)
    }
}
