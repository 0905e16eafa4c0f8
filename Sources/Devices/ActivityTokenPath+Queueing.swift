import APNsCore
import DeliveryEngine
import Foundation
import JSON
import LeasedQueue
import Postgres
import Registry
import ScorecastCore

/// Queueing: each game's new updates rendered once per app and tier, merged into every active
/// token's pending row by ``ActivityUpdateMerge`` and written in one statement per game.
extension ActivityTokenPath {
    /// Renders each game with active tokens whose applied seq moved past what the token path
    /// has seen, and queues the update for every active token, due at `now`.
    func queueUpdates(now: Date) async throws {
        let games = try await pool.query("""
            SELECT g.id, g.applied_seq, COALESCE(c.applied_seq, 0) AS seen
            FROM games g LEFT JOIN activity_cursors c ON c.game_id = g.id
            WHERE g.id IN (SELECT DISTINCT game_id FROM activity_tokens WHERE status = 'active')
              AND g.applied_seq > COALESCE(c.applied_seq, 0)
            """)
        for row in games {
            try await queue(gameID: try row.decode("id"), seen: try row.decode("seen"), now: now)
        }
    }

    /// The tokens one rendering serves: the devices of one app with one frequent-updates setting.
    struct Audience: Hashable {
        let appID: Int64
        let frequentUpdates: Bool
    }

    private func queue(gameID: String, seen: Int64, now: Date) async throws {
        guard let game = try await GameStore(pool: pool).find(id: gameID), let state = game.state else { return }
        // The newest alerting event since the last round carries the alert; else the newest one.
        let events = try await pool.query("""
            SELECT kind, body FROM events
            WHERE game_id = \(gameID) AND outcome = 'accepted' AND seq > \(seen) AND seq <= \(game.appliedSeq)
            ORDER BY seq
            """)
        let validator = FeedEventValidator()
        let parsed = events.compactMap { row -> FeedEvent? in
            guard let bytes = try? row.decode("body", as: PostgresJSON.self).bytes, let json = try? JSONParser().parse(bytes) else { return nil }
            return try? validator.event(from: json, now: now.addingTimeInterval(86_400 * 365))
        }
        let info = GameInfo(sport: game.sport, homeName: game.homeTeam, awayName: game.awayTeam)
        let appIDs: [Int64] = try await pool.query("""
            SELECT DISTINCT d.app_id FROM activity_tokens t JOIN devices d ON d.id = t.device_id
            WHERE t.game_id = \(gameID) AND t.status = 'active'
            """).map { try $0.decode("app_id") }
        var updates: [Audience: ActivityUpdate] = [:]
        for appID in appIDs {
            guard let app = try await AppStore(pool: pool).find(id: appID) else { continue }
            // Activities of devices whose user turned frequent updates off get the light tier,
            // as their channel would: priority 10 only for a start, a score and the end.
            for frequentUpdates in [true, false] {
                var renderer = LiveActivityRenderer(settings: try app.renderSettings(staleness: staleness))
                if !frequentUpdates { renderer.settings.priority = .lightTier }
                let event = parsed.last { renderer.settings.priority.isAlerting($0) } ?? parsed.last
                let update = try event.map { event throws(LiveActivityPayloadError) in
                    try renderer.render(state: state, game: info, event: event, channelLastTimestamp: nil, receivedAt: now)
                } ?? renderer.renderSnapshot(state: state, game: info, now: now, channelLastTimestamp: nil)
                // A payload a device push cannot carry is refused here, before anything is written.
                _ = try update.payload.encode(for: .device)
                updates[Audience(appID: appID, frequentUpdates: frequentUpdates)] = ActivityUpdate(update, final: event?.kind == .final, dueAt: now)
            }
        }
        try await enqueue(updates, gameID: gameID, now: now)
        try await pool.execute("""
            INSERT INTO activity_cursors (game_id, applied_seq) VALUES (\(gameID), \(game.appliedSeq))
            ON CONFLICT (game_id) DO UPDATE SET applied_seq = GREATEST(activity_cursors.applied_seq, EXCLUDED.applied_seq)
            """)
    }

    /// Merges each audience's update into the pending row of every active token of `gameID` in
    /// it: the rows are read under their lock (in token order), merged by
    /// ``ActivityUpdateMerge`` (a row is in flight while its lease runs at `now`) and written in
    /// one statement fenced on the version read. A row that changed anyway (a token's first row
    /// inserted concurrently) or a deadlock rolls the whole transaction back and runs it again.
    private func enqueue(_ updates: [Audience: ActivityUpdate], gameID: String, now: Date) async throws {
        guard !updates.isEmpty else { return }
        try await retryingConflicts("queueing token updates") {
            try await pool.withTransaction(opening: [Self.lockPendingRows(gameID: gameID, now: now)]) { connection, opened in
                var writes: [PendingWrite] = []
                for row in opened[0].rows {
                    let audience = Audience(appID: try row.decode("app_id"), frequentUpdates: try row.decode("frequent_updates"))
                    guard let update = updates[audience] else { continue }
                    let version = try row.decode("version", as: Int64?.self)
                    let pending = try version.map { _ in try ActivityUpdate(stored: row) }
                    let merged = ActivityUpdateMerge.merge(pending: pending, inFlight: try row.decode("in_flight"), update: update)
                    writes.append(PendingWrite(
                        tokenID: try row.decode("activity_token_id"), version: (version ?? 0) + 1, update: merged,
                        body: try merged.payload.encode(for: .device)))
                }
                guard !writes.isEmpty else { return }
                let written = try await connection.query(Self.upsert(writes))
                guard written.count == writes.count else { throw RowsChangedConcurrently() }
            }
        }
    }

    /// One token's merged update and the version it is written as (the version read + 1).
    private struct PendingWrite {
        let tokenID: Int64
        let version: Int64
        let update: ActivityUpdate
        let body: [UInt8]
    }

    /// Every active token of `gameID` with its device's app and setting, and its pending row
    /// (locked; whether a sender holds its lease at `now`: a dead sender's expired lease holds
    /// nothing, and its alert rides on a newer state like any pending one), in token order.
    private static func lockPendingRows(gameID: String, now: Date) -> SQL {
        """
        WITH pending AS MATERIALIZED (
            SELECT o.activity_token_id, o.version, o.payload, o.priority, o.alerting, o.final, o.due_at,
                   \(Self.queue.isHeld(at: now)) AS in_flight
            FROM activity_outbox o
            WHERE o.activity_token_id IN (SELECT id FROM activity_tokens WHERE game_id = \(gameID) AND status = 'active')
            ORDER BY o.activity_token_id
            FOR UPDATE OF o
        )
        SELECT t.id AS activity_token_id, d.app_id, d.frequent_updates, p.version, p.payload, p.priority, p.alerting, p.final,
               p.due_at, COALESCE(p.in_flight, false) AS in_flight
        FROM activity_tokens t JOIN devices d ON d.id = t.device_id LEFT JOIN pending p ON p.activity_token_id = t.id
        WHERE t.game_id = \(gameID) AND t.status = 'active'
        ORDER BY t.id
        """
    }

    /// Writes the merged rows; a row whose version is not the one read is left alone (and
    /// missing from what the statement returns).
    private static func upsert(_ writes: [PendingWrite]) -> SQL {
        let updates = writes.map(\.update)
        return """
            INSERT INTO activity_outbox AS o (activity_token_id, version, payload, payload_timestamp, priority, alerting, final, due_at)
            SELECT u.activity_token_id, u.version, convert_to(u.payload, 'UTF8'), u.payload_timestamp, u.priority, u.alerting, u.final, u.due_at
            FROM unnest(\(writes.map(\.tokenID))::int8[], \(writes.map(\.version))::int8[],
                        \(writes.map { String(decoding: $0.body, as: UTF8.self) })::text[],
                        \(updates.map { Int64($0.payload.timestamp) })::int8[], \(updates.map { Int16($0.priority.rawValue) })::int2[],
                        \(updates.map(\.alerting))::bool[], \(updates.map(\.final))::bool[], \(updates.map(\.dueAt))::timestamptz[])
                 AS u(activity_token_id, version, payload, payload_timestamp, priority, alerting, final, due_at)
            ON CONFLICT (activity_token_id) DO UPDATE SET
                version = EXCLUDED.version, payload = EXCLUDED.payload, payload_timestamp = EXCLUDED.payload_timestamp,
                priority = EXCLUDED.priority, alerting = EXCLUDED.alerting, final = EXCLUDED.final, due_at = EXCLUDED.due_at,
                updated_at = now()
            WHERE o.version = EXCLUDED.version - 1
            RETURNING o.activity_token_id
            """
    }
}

extension ActivityUpdate {
    /// Reads a pending `activity_outbox` row selected with `payload, priority, alerting, final, due_at`.
    init(stored row: PostgresRow) throws {
        let bytes = [UInt8](try row.decode("payload", as: Data.self))
        let payload: LiveActivityPayload
        do {
            payload = try LiveActivityPayload(jsonValue: try JSONParser().parse(bytes))
        } catch {
            throw PostgresError(.decodingFailed, "activity_outbox.payload is not a Live Activity payload: \(error)", column: "payload")
        }
        let value = Int(try row.decode("priority", as: Int16.self))
        guard let priority = BroadcastPriority(rawValue: value) else {
            throw PostgresError(.decodingFailed, "activity_outbox.priority holds \(value), not 5 or 10", column: "priority")
        }
        self.init(
            payload: payload, priority: priority, alerting: try row.decode("alerting"), final: try row.decode("final"),
            dueAt: try row.decode("due_at"))
    }
}
