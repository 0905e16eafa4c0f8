import APNsCore
import DeliveryEngine
import Foundation
import JSON
import Postgres
import Registry
import ScorecastCore

extension StatsQuery {
    /// `GET /v1/games/{id}/live`: the game's scoreboard, its channels with their budgets,
    /// whether an update waits and what their phones show (``ActivityFace``, from the bodies
    /// APNs last accepted), its 25 latest deliveries and the alerts its channels still owe.
    /// `nil` when there is no such game.
    package func gameLive(_ id: String, now: Date) async throws -> GameLiveResponse? {
        guard let gameRow = try await pool.query("""
            SELECT \(unsafeSQL: GameRecord.columns), finished_at, updated_at,
                   (SELECT count(*) FROM channel_bindings b JOIN channels c ON c.id = b.channel_id
                    WHERE b.game_id = games.id AND c.status IN ('active', 'retiring'))::int AS live_channels
            FROM games WHERE id = \(id)
            """).first else { return nil }
        let game = Self.liveGame(try GameRecord(row: gameRow), channels: try gameRow.decode("live_channels"), updatedAt: try gameRow.decode("updated_at"))
        let channelRows = try await pool.query("""
            SELECT c.id, c.apns_channel_id, c.status, a.bundle_id, a.environment, o.channel_id IS NOT NULL AS pending,
                   coalesce(o.alerts, '[]'::jsonb) AS alerts, a.date_encoding, a.content_state_mapping,
                   c.shown_payload, c.shown_at, c.alert_payload, c.alert_at
            FROM channel_bindings b
            JOIN channels c ON c.id = b.channel_id
            JOIN apps a ON a.id = c.app_id
            LEFT JOIN outbox o ON o.channel_id = c.id
            WHERE b.game_id = \(id)
            ORDER BY CASE c.status WHEN 'active' THEN 0 WHEN 'retiring' THEN 1 ELSE 2 END, c.id
            """)
        let channelIDs = try channelRows.map { try $0.decode("id", as: Int64.self) }
        let budgets = try await budgets.budgets(.channels(channelIDs), now: now, limit: channelIDs.count)
        var channels: [GameChannelStatus] = []
        var alerts: [PendingAlert] = []
        for row in channelRows {
            let channel: String = try row.decode("apns_channel_id")
            channels.append(GameChannelStatus(
                channel: channel, app: try row.decode("bundle_id"), environment: try row.decode("environment"),
                status: try row.decode("status"), pendingUpdate: try row.decode("pending"),
                budget: budgets.first { $0.channel == channel }, face: try Self.face(row, now: now)))
            let queue = try QueuedAlert.queue(from: try JSONParser().parse(try row.decode("alerts", as: PostgresJSON.self).bytes))
            alerts += queue.map { PendingAlert(channel: channel, event: $0.key, text: Self.text(of: $0.alert), queuedAt: $0.queuedAt) }
        }
        return GameLiveResponse(
            generatedAt: now, game: game, channels: channels,
            recentDeliveries: try await recentDeliveries(channelIDs: channelIDs),
            pendingAlerts: alerts.sorted { ($0.queuedAt, $0.channel, $0.event) < ($1.queuedAt, $1.channel, $1.event) })
    }

    /// What a channel's phones show, from its row's `shown_payload` and `alert_payload`.
    private static func face(_ row: PostgresRow, now: Date) throws -> ActivityFace? {
        guard let shown = try row.decode("shown_payload", as: String?.self), let shownAt = try row.decode("shown_at", as: Date?.self) else {
            return nil
        }
        // A mapping the app could not render with sent nothing; the default shape is the best guess.
        let mappingJSON = try JSONParser().parse(try row.decode("content_state_mapping", as: PostgresJSON.self).bytes)
        return ActivityFace.read(
            shown: Array(shown.utf8), shownAt: shownAt, alert: try row.decode("alert_payload", as: String?.self).map { Array($0.utf8) },
            alertAt: try row.decode("alert_at", as: Date?.self), mapping: (try? ContentStateMapping(jsonValue: mappingJSON)) ?? .identity,
            dateEncoding: AppRecord.dateEncodings[try row.decode("date_encoding", as: String.self)] ?? .referenceDate, now: now)
    }

    /// The latest delivery attempts, newest first, to `channelIDs` (every channel when `nil`).
    func recentDeliveries(channelIDs: [Int64]?, limit: Int = 25) async throws -> [RecentDelivery] {
        let condition: SQL = channelIDs.map { "d.channel_id = ANY(\($0))" } ?? "true"
        return try await pool.query("""
            SELECT d.sent_at, a.bundle_id, c.apns_channel_id,
                   (SELECT min(b.game_id) FROM channel_bindings b WHERE b.channel_id = d.channel_id) AS game,
                   d.priority, d.downgraded, d.outcome, d.status_code, d.reason, d.apns_latency_ms, d.attempt,
                   cardinality(d.event_ids) AS events
            FROM deliveries d
            JOIN channels c ON c.id = d.channel_id
            JOIN apps a ON a.id = d.app_id
            WHERE \(condition)
            ORDER BY d.sent_at DESC, d.id DESC
            LIMIT \(limit)
            """).map { row in
            RecentDelivery(
                at: try row.decode("sent_at"), app: try row.decode("bundle_id"), channel: try row.decode("apns_channel_id"),
                game: try row.decode("game", as: String?.self), priority: try row.decode("priority"),
                downgraded: try row.decode("downgraded"), outcome: Self.outcome(try row.decode("outcome")),
                status: try row.decode("status_code", as: Int?.self), reason: try row.decode("reason", as: String?.self),
                latencyMs: try row.decode("apns_latency_ms", as: Double?.self), attempt: try row.decode("attempt"),
                events: try row.decode("events", as: Int?.self) ?? 0)
        }
    }

    /// Every app's channels against the limit, most used first.
    func channelUsage() async throws -> [AppChannelUsage] {
        try await pool.query("""
            SELECT a.bundle_id, a.environment,
                   count(c.id) FILTER (WHERE c.status = 'active')::int AS active,
                   count(c.id) FILTER (WHERE c.status = 'retiring')::int AS retiring
            FROM apps a LEFT JOIN channels c ON c.app_id = a.id
            GROUP BY a.id, a.bundle_id, a.environment
            ORDER BY count(c.id) FILTER (WHERE c.status IN ('active', 'retiring')) DESC, a.bundle_id, a.environment
            """).map { row in
            AppChannelUsage(
                app: try row.decode("bundle_id"), environment: try row.decode("environment"),
                channels: ChannelUsage(active: try row.decode("active"), retiring: try row.decode("retiring"), limit: channelLimit))
        }
    }

    /// An alert's title and body as one line: plain text as is, a localized text as its key
    /// and arguments. Pure.
    static func text(of alert: LiveActivityAlert) -> String {
        func line(_ text: AlertText) -> String {
            switch text {
            case .plain(let value): value
            case .localized(let key, let arguments): arguments.isEmpty ? key : key + " (" + arguments.joined(separator: ", ") + ")"
            }
        }
        return [alert.title, alert.body].compactMap { $0.map(line) }.joined(separator: " — ")
    }
}
