import Foundation
import LeasedQueue
import Postgres

/// The kick-off fan-out's durable state: `kickoffs` (which games were started and why) and
/// `activity_starts` (one row per device and game, ever — a start is never planned twice).
package struct KickoffStore: Sendable {
    /// What started a game's fan-out.
    package enum Trigger: String, Sendable {
        case leadTime = "lead-time"
        case startEvent = "start-event"
        case command
    }

    /// One claimed push-to-start, with what sending it needs.
    package struct ClaimedStart: Sendable, Hashable {
        package var deviceID: Int64
        package var gameID: String
        package var appID: Int64
        package var token: String
        package var supportsChannels: Bool
        package var frequentUpdates: Bool
        package var attempts: Int
    }

    /// How a claimed start ended.
    package struct Completion: Sendable, Hashable {
        package enum Status: String, Sendable { case started, failed, pending }
        package var deviceID: Int64
        package var gameID: String
        package var status: Status
        /// `channel`, `light-channel` or `token` (empty when the start was never composed).
        package var input: String
        package var statusCode: Int
        package var reason: String
        package var apnsID: String
        /// For `pending` (a retry): seconds to wait.
        package var retryAfter: Double
        /// Set when APNs called the push-to-start token dead: the reason to record on the device.
        package var pruneReason: String?
        /// The token the answer was about (a token rotated since is not pruned).
        package var token: String

        /// When a retry completed at `now` may be claimed again; `nil` for a start that ended.
        package func notBefore(completedAt now: Date) -> Date? {
            status == .pending ? now.addingTimeInterval(retryAfter) : nil
        }

        /// When a start completed at `now` ended; `nil` for a retry (still pending).
        package func finishedAt(completedAt now: Date) -> Date? {
            status == .pending ? nil : now
        }
    }

    /// The LISTEN/NOTIFY channel a newly planned kick-off is announced on (wakes the fan-out).
    package static let notificationChannel = "scorecast_devices"

    let pool: PostgresPool
    /// The push-to-starts, leased one row per device and game.
    private static let queue = LeasedQueue.activityStarts

    /// Creates a store on `pool`.
    package init(pool: PostgresPool) { self.pool = pool }

    /// Records the kick-off of `gameID` at `now` (once; the first trigger is kept) and wakes the
    /// fan-out, which plans its starts chunk by chunk while it sends
    /// (``planAndClaim(limit:owner:lease:now:)``).
    /// A `command` trigger for a kick-off planned already plans it again from the first device,
    /// for devices that followed since (no device is started twice). Returns whether the kick-off
    /// was new.
    @discardableResult
    package func begin(gameID: String, trigger: Trigger, now: Date) async throws -> Bool {
        try await pool.withTransaction { connection in
            let inserted = try await connection.execute("""
                INSERT INTO kickoffs (game_id, trigger, created_at) VALUES (\(gameID), \(trigger.rawValue), \(now))
                ON CONFLICT (game_id) DO NOTHING
                """)
            if inserted == 0, trigger == .command {
                try await connection.execute("""
                    UPDATE kickoffs SET plan_cursor = 0, planned_at = NULL WHERE game_id = \(gameID) AND planned_at IS NOT NULL
                    """)
            }
            try await connection.execute("SELECT pg_notify(\(Self.notificationChannel), '')")
            return inserted > 0
        }
    }

    /// A chunk of planning: the starts it claimed, and whether a kick-off was found to plan.
    package struct PlannedChunk: Sendable {
        /// Starts planned in this chunk, already leased to the caller: send them.
        package var claimed: [ClaimedStart]
        /// Whether a kick-off still being planned was found (false: nothing left to plan).
        package var planned: Bool
    }

    /// Plans the next chunk of the oldest kick-off still being planned: up to `limit` following
    /// devices after its cursor (in device id order), each with a push-to-start token and no
    /// activity or start for the game yet, recorded as starts already `sending` under a lease of
    /// `owner` from `now` — planned and claimed in one write — and moves the cursor past them, all in one
    /// statement (one round trip on the fan-out's serial path). A process that dies after it
    /// leaves those starts to run out their lease (never sent twice) and the cursor where the next
    /// chunk goes on. Processes planning the same kick-off take turns on its row.
    package func planAndClaim(limit: Int, owner: String, lease: Duration, now: Date) async throws -> PlannedChunk {
        // `chunk`: each target's followers after the cursor in device order, one index-only range
        // scan each on `follows_target_device`; the `limit` smallest of their union. Empty names
        // match nothing (a follow's value is never empty). The row lock of `kickoff` serialises
        // planners; one that waited reads the cursor the other moved.
        let rows = try await pool.query("""
            WITH kickoff AS (
                SELECT k.game_id, k.plan_cursor, g.league, g.home_team, g.away_team
                FROM kickoffs k JOIN games g ON g.id = k.game_id
                WHERE k.planned_at IS NULL
                ORDER BY k.created_at, k.game_id LIMIT 1
                FOR UPDATE OF k
            ), chunk AS (
                SELECT DISTINCT f.device_id FROM kickoff k, LATERAL (
                    (SELECT device_id FROM follows WHERE kind = 'game' AND value = k.game_id AND device_id > k.plan_cursor
                     ORDER BY device_id LIMIT \(limit))
                    UNION ALL
                    (SELECT device_id FROM follows WHERE kind = 'league' AND value = k.league AND device_id > k.plan_cursor
                     ORDER BY device_id LIMIT \(limit))
                    UNION ALL
                    (SELECT device_id FROM follows WHERE kind = 'team' AND value = k.home_team AND device_id > k.plan_cursor
                     ORDER BY device_id LIMIT \(limit))
                    UNION ALL
                    (SELECT device_id FROM follows WHERE kind = 'team' AND value = k.away_team AND device_id > k.plan_cursor
                     ORDER BY device_id LIMIT \(limit))
                ) f
                ORDER BY f.device_id LIMIT \(limit)
            ), claimed AS (
                INSERT INTO activity_starts (device_id, game_id, status, attempts, lease_owner, lease_expires_at)
                SELECT c.device_id, k.game_id, 'sending', 1, \(owner), \(now.adding(lease))::timestamptz
                FROM chunk c CROSS JOIN kickoff k JOIN devices d ON d.id = c.device_id
                WHERE d.push_to_start_token IS NOT NULL
                  AND NOT EXISTS (SELECT 1 FROM activity_tokens a WHERE a.device_id = c.device_id AND a.game_id = k.game_id)
                ON CONFLICT DO NOTHING
                RETURNING device_id, game_id
            ), moved AS (
                UPDATE kickoffs SET plan_cursor = COALESCE((SELECT max(device_id) FROM chunk), kickoffs.plan_cursor),
                    planned = kickoffs.planned + (SELECT count(*) FROM claimed),
                    planned_at = CASE WHEN (SELECT count(*) FROM chunk) < \(limit) THEN \(now)::timestamptz END
                FROM kickoff k WHERE kickoffs.game_id = k.game_id
                RETURNING kickoffs.game_id
            )
            SELECT m.game_id AS kickoff, c.device_id, c.game_id, d.app_id, d.push_to_start_token, d.supports_channels,
                   d.frequent_updates
            FROM (SELECT 1) one LEFT JOIN moved m ON true LEFT JOIN claimed c ON true LEFT JOIN devices d ON d.id = c.device_id
            """)
        let planned = try rows.first?.decode("kickoff", as: String?.self) != nil
        let claimed = try rows.compactMap { row -> ClaimedStart? in
            guard let deviceID = try row.decode("device_id", as: Int64?.self) else { return nil }
            return ClaimedStart(
                deviceID: deviceID, gameID: try row.decode("game_id"), appID: try row.decode("app_id"),
                token: try row.decode("push_to_start_token", as: String?.self) ?? "",
                supportsChannels: try row.decode("supports_channels"), frequentUpdates: try row.decode("frequent_updates"),
                attempts: 1)
        }
        return PlannedChunk(claimed: claimed, planned: planned)
    }

    /// Games whose fan-out is due at `now` and has not begun: scheduled within `lead` of their
    /// start (and not more than 12 hours past it), or already live. Each with its trigger.
    package func dueKickoffs(now: Date, lead: Duration) async throws -> [(gameID: String, trigger: Trigger)] {
        let horizon = now.addingTimeInterval(TimeInterval(lead.components.seconds))
        let oldest = now.addingTimeInterval(-12 * 3_600)
        return try await pool.query("""
            SELECT g.id, g.status FROM games g
            WHERE g.status IN ('scheduled', 'live')
              AND ((g.status = 'scheduled' AND g.starts_at <= \(horizon) AND g.starts_at > \(oldest)) OR g.status = 'live')
              AND NOT EXISTS (SELECT 1 FROM kickoffs k WHERE k.game_id = g.id)
            ORDER BY g.starts_at NULLS LAST
            LIMIT 100
            """).map { row in
            let status: String = try row.decode("status")
            return (try row.decode("id"), status == "live" ? .startEvent : .leadTime)
        }
    }

    /// Claims up to `limit` planned starts that are due at `now`, under a lease of `owner`: the
    /// queue's one claim (``LeasedQueue``), each claim counting an attempt.
    package func claim(limit: Int, owner: String, lease: Duration, now: Date) async throws -> [ClaimedStart] {
        let claim = Self.queue.claim(
            LeasedQueue.Pick(condition: "s.status = 'pending' AND (s.not_before IS NULL OR s.not_before <= \(now))", limit: limit),
            owner: owner, lease: lease, at: now, setting: "status = 'sending', attempts = s.attempts + 1",
            returning: "s.device_id, s.game_id, s.attempts")
        return try await pool.query("""
            WITH \(claim)
            SELECT c.device_id, c.game_id, c.attempts, d.app_id, d.push_to_start_token, d.supports_channels, d.frequent_updates
            FROM claimed c JOIN devices d ON d.id = c.device_id
            """).map { row in
            ClaimedStart(
                deviceID: try row.decode("device_id"), gameID: try row.decode("game_id"), appID: try row.decode("app_id"),
                token: try row.decode("push_to_start_token", as: String?.self) ?? "",
                supportsChannels: try row.decode("supports_channels"), frequentUpdates: try row.decode("frequent_updates"),
                attempts: Int(try row.decode("attempts", as: Int32.self)))
        }
    }

    /// Records how claimed starts ended at `now` (only rows still leased to `owner`; a retry is
    /// due `retryAfter` seconds from `now`), and drops the push-to-start tokens APNs called dead —
    /// unless the device registered a new one since. Every value is computed here and bound as
    /// an array: the statement only applies them (empty texts and a zero status are stored as NULL).
    package func complete(_ completions: [Completion], owner: String, now: Date) async throws {
        guard !completions.isEmpty else { return }
        func text(_ value: String) -> String? { value.isEmpty ? nil : value }
        try await pool.withTransaction { connection in
            try await connection.execute("""
                UPDATE activity_starts s SET
                    status = v.status, input = v.input, status_code = v.code, reason = v.reason, apns_id = v.apns_id,
                    \(LeasedQueue.releasing), not_before = v.not_before, finished_at = v.finished_at
                FROM unnest(\(completions.map(\.deviceID))::int8[], \(completions.map(\.gameID))::text[],
                            \(completions.map(\.status.rawValue))::text[], \(completions.map { text($0.input) })::text[],
                            \(completions.map { $0.statusCode == 0 ? nil : Int32(clamping: $0.statusCode) })::int4[],
                            \(completions.map { text($0.reason) })::text[], \(completions.map { text($0.apnsID) })::text[],
                            \(completions.map { $0.notBefore(completedAt: now) })::timestamptz[],
                            \(completions.map { $0.finishedAt(completedAt: now) })::timestamptz[])
                     AS v(device_id, game_id, status, input, code, reason, apns_id, not_before, finished_at)
                WHERE s.device_id = v.device_id AND s.game_id = v.game_id AND \(Self.queue.isHeld(by: owner))
                """)
            let pruned = completions.filter { $0.pruneReason != nil }
            guard !pruned.isEmpty else { return }
            // `updated_at` is an audit column (no rule reads it): it keeps the database's clock.
            try await connection.execute("""
                UPDATE devices d SET push_to_start_token = NULL, token_pruned_reason = v.reason, token_pruned_at = \(now),
                    updated_at = now()
                FROM unnest(\(pruned.map(\.deviceID)), \(pruned.map(\.token)), \(pruned.map { $0.pruneReason ?? "" }))
                     AS v(device_id, token, reason)
                WHERE d.id = v.device_id AND d.push_to_start_token = v.token
                """)
            // Starts still planned for a device whose token just died can never be sent.
            try await connection.execute("""
                UPDATE activity_starts s SET status = 'failed', reason = 'TokenPruned', finished_at = \(now)
                FROM devices d
                WHERE s.device_id = d.id AND s.status = 'pending' AND d.push_to_start_token IS NULL
                  AND d.id = ANY(\(pruned.map(\.deviceID)))
                """)
        }
    }

    /// Starts whose lease expired by `now` while `sending`: APNs may have accepted them, so they
    /// are not sent again (a second start would show a second activity); they end `failed`,
    /// reason `Interrupted`. Returns how many.
    @discardableResult
    package func abandonExpired(now: Date) async throws -> Int {
        try await pool.execute("""
            UPDATE activity_starts s SET status = 'failed', reason = 'Interrupted', \(LeasedQueue.releasing), finished_at = \(now)
            WHERE s.status = 'sending' AND \(Self.queue.hasRunOut(at: now))
            """)
    }

    /// Progress of every kick-off: starts by status and failure reason, pruned tokens, and the
    /// token path's downgraded updates.
    package func progress() async throws -> KickoffProgress {
        var progress = KickoffProgress()
        for row in try await pool.query("""
            SELECT status, COALESCE(reason, '') AS reason, count(*) AS n FROM activity_starts GROUP BY status, reason
            """) {
            let status: String = try row.decode("status")
            let reason: String = try row.decode("reason")
            let count: Int64 = try row.decode("n")
            switch status {
            case "started": progress.started += Int(count)
            case "pending": progress.pending += Int(count)
            case "sending": progress.sending += Int(count)
            default: progress.failedByReason[reason.isEmpty ? "unknown" : reason, default: 0] += Int(count)
            }
        }
        let pruned = try await pool.query("""
            SELECT (SELECT count(*) FROM devices WHERE token_pruned_at IS NOT NULL) AS starts,
                   (SELECT count(*) FROM activity_tokens WHERE status = 'pruned') AS activities,
                   (SELECT COALESCE(sum(downgraded), 0)::int8 FROM activity_tokens) AS downgraded
            """).first
        progress.pushToStartTokensPruned = Int(try pruned?.decode("starts", as: Int64.self) ?? 0)
        progress.activityTokensPruned = Int(try pruned?.decode("activities", as: Int64.self) ?? 0)
        progress.activityUpdatesDowngraded = Int(try pruned?.decode("downgraded", as: Int64.self) ?? 0)
        return progress
    }
}

/// Where the kick-off fan-outs stand (`/v1/stats/devices`, `/metrics`).
package struct KickoffProgress: Sendable, Hashable, Encodable {
    package var started = 0
    package var pending = 0
    package var sending = 0
    package var failedByReason: [String: Int] = [:]
    package var pushToStartTokensPruned = 0
    package var activityTokensPruned = 0
    /// Token-path updates that wanted priority 10 and went at 5: the activity's budget was spent.
    package var activityUpdatesDowngraded = 0

    /// All failed starts.
    package var failed: Int { failedByReason.values.reduce(0, +) }
}
