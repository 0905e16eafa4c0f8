import APNs
import APNsCore
import Clocks
import DeliveryEngine
import Foundation
import JSON
import Postgres
import Registry
import ScorecastCore
import ScorecastLogging
import ServiceBase

/// Updates for activities that listen to their own push token (devices before iOS 18, or games
/// without a channel for the app): every game update is rendered once per app, exactly as for
/// its channels, and queued for each active token of the game — one pending row per token, a
/// newer update replacing an older one (coalescing) — then sent as device pushes with topic
/// `<bundle>.push-type.liveactivity`. The game's `final` arrives as `event: end` with its
/// dismissal date. A token APNs calls dead is pruned; a rotated token replaced it already.
/// Devices whose user turned frequent updates off get the light tier; every activity has its
/// own priority-10 budget (``ActivityBudget``): once it is spent, updates go at priority 5
/// (counted as downgraded), and its last sends are kept for the final whistle.
struct ActivityTokenPath: Sendable {
    let pool: PostgresPool
    let apns: APNsClientSet
    let credentials: CredentialStore
    let staleness: StalenessPolicy
    let batch: Int
    let budget: ActivityBudget
    let metrics: DeviceMetrics?
    let logger: Logger
    /// The time every due time, lease and rolling budget hour is reckoned on.
    let clock: any ServiceClock
    static let retry = RetryPolicy(baseDelay: 0.5, maximumDelay: 60, maximumAttempts: 8)

    /// Queues new game updates for tokens, then sends every due one.
    func round(owner: String, lease: Duration) async throws {
        try await queueUpdates(now: clock.now())
        while true {
            let claimed = try await claim(owner: owner, lease: lease, now: clock.now())
            if claimed.isEmpty { return }
            let outcomes = await send(claimed)
            try await complete(outcomes, owner: owner, now: clock.now())
            if claimed.count < batch { return }
        }
    }

    // MARK: - Queueing

    /// Renders each game with active tokens whose applied seq moved past what the token path
    /// has seen, and upserts one outbox row per active token, due at `now`.
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
                try await enqueue(
                    update, final: event?.kind == .final, gameID: gameID, appID: appID, frequentUpdates: frequentUpdates, now: now)
            }
        }
        try await pool.execute("""
            INSERT INTO activity_cursors (game_id, applied_seq) VALUES (\(gameID), \(game.appliedSeq))
            ON CONFLICT (game_id) DO UPDATE SET applied_seq = GREATEST(activity_cursors.applied_seq, EXCLUDED.applied_seq)
            """)
    }

    /// Upserts `update` into the outbox row of every active token of `gameID` on devices of
    /// `appID` whose frequent-updates setting is `frequentUpdates`, due at `now`; `final` marks
    /// the final whistle's update (it may spend the budget's reserve). `updated_at` is an audit
    /// column (no rule reads it): it keeps the database's clock.
    private func enqueue(
        _ update: RenderedUpdate, final: Bool, gameID: String, appID: Int64, frequentUpdates: Bool, now: Date
    ) async throws {
        let body = try update.payload.encode(for: .device)
            try await pool.execute("""
                INSERT INTO activity_outbox AS o (activity_token_id, payload, payload_timestamp, priority, alerting, final, due_at)
                SELECT t.id, \(body), \(Int64(update.timestamp)), \(Int32(update.priority.rawValue)), \(update.isAlerting), \(final), \(now)
                FROM activity_tokens t JOIN devices d ON d.id = t.device_id
                WHERE t.game_id = \(gameID) AND t.status = 'active' AND d.app_id = \(appID) AND d.frequent_updates = \(frequentUpdates)
                ON CONFLICT (activity_token_id) DO UPDATE SET
                    -- Coalescing merges state, never announcements: a pending alert not yet on its way
                    -- rides on the newer state when the newer update has none of its own.
                    payload = CASE WHEN o.alerting AND NOT EXCLUDED.alerting AND o.lease_owner IS NULL
                                   THEN convert_to(jsonb_set(convert_from(EXCLUDED.payload, 'UTF8')::jsonb, '{aps,alert}',
                                                             convert_from(o.payload, 'UTF8')::jsonb -> 'aps' -> 'alert')::text, 'UTF8')
                                   ELSE EXCLUDED.payload END,
                    payload_timestamp = EXCLUDED.payload_timestamp,
                    priority = GREATEST(o.priority, EXCLUDED.priority), alerting = o.alerting OR EXCLUDED.alerting,
                    final = o.final OR EXCLUDED.final,
                    version = o.version + 1, due_at = LEAST(o.due_at, \(now)), updated_at = now()
                """)
    }

    // MARK: - Sending

    /// One claimed token update.
    struct Claimed: Sendable {
        let tokenID: Int64
        let token: String
        let appID: Int64
        let version: Int64
        let attempts: Int
        let priority: Int
        let timestamp: Int64
        let payload: [UInt8]
        /// The device's frequent-updates setting (it sets the activity's budget).
        let frequentUpdates: Bool
        /// Priority-10 updates sent to the activity in the last hour.
        let spent: Int
        /// Whether it carries the final whistle (it may spend the budget's reserve).
        let final: Bool
    }

    /// How a claimed update ended.
    struct Outcome: Sendable {
        let claimed: Claimed
        let verdict: DevicePushVerdict
        let retryAfter: Double?
        /// Whether it went at priority 10 (spending the activity's budget when delivered).
        var immediate = false
        /// Whether it wanted priority 10 and went at 5 because the budget was spent.
        var downgraded = false
        /// The app's bundle id, the label of the downgrade counter (empty when no send was made).
        var bundleID = ""
    }

    /// Leases the rows due at `now`, with each activity's priority-10 sends in the hour before.
    private func claim(owner: String, lease: Duration, now: Date) async throws -> [Claimed] {
        try await pool.query("""
            WITH picked AS (
                SELECT activity_token_id FROM activity_outbox
                WHERE due_at <= \(now) AND (lease_owner IS NULL OR lease_expires_at <= \(now))
                ORDER BY due_at LIMIT \(batch)
                FOR UPDATE SKIP LOCKED
            ), claimed AS (
                UPDATE activity_outbox o SET lease_owner = \(owner),
                    lease_expires_at = \(now)::timestamptz + make_interval(secs => \(Double(lease.components.seconds))), attempts = o.attempts + 1
                FROM picked p WHERE o.activity_token_id = p.activity_token_id
                RETURNING o.activity_token_id, o.version, o.attempts, o.priority, o.payload_timestamp, o.payload, o.final
            )
            SELECT c.*, t.token, d.app_id, d.frequent_updates,
                   (SELECT count(*) FROM activity_priority_sends s
                    WHERE s.activity_token_id = c.activity_token_id AND s.sent_at > \(now)::timestamptz - make_interval(secs => \(ActivityBudget.window))) AS spent
            FROM claimed c
            JOIN activity_tokens t ON t.id = c.activity_token_id JOIN devices d ON d.id = t.device_id
            """).map { row in
            Claimed(
                tokenID: try row.decode("activity_token_id"), token: try row.decode("token"), appID: try row.decode("app_id"),
                version: try row.decode("version"), attempts: Int(try row.decode("attempts", as: Int32.self)),
                priority: Int(try row.decode("priority", as: Int16.self)), timestamp: try row.decode("payload_timestamp"),
                payload: [UInt8](try row.decode("payload", as: Data.self)), frequentUpdates: try row.decode("frequent_updates"),
                spent: Int(try row.decode("spent", as: Int64.self)), final: try row.decode("final"))
        }
    }

    private func send(_ claimed: [Claimed]) async -> [Outcome] {
        var contexts: [Int64: (AppRecord, APNsCredentials)?] = [:]
        for appID in Set(claimed.map(\.appID)) {
            if let app = try? await AppStore(pool: pool).find(id: appID), app.pausedReason == nil,
               let credentials = try? await credentials.credentials(for: app) {
                contexts[appID] = (app, credentials)
            } else {
                contexts[appID] = .some(nil)
            }
        }
        return await withTaskGroup(of: Outcome.self) { group in
            for item in claimed {
                guard let (app, credentials) = contexts[item.appID] ?? nil else {
                    group.addTask { Outcome(claimed: item, verdict: .retry(reason: "AppUnusable"), retryAfter: nil) }
                    continue
                }
                let immediate = budget.sendsImmediately(
                    priority: item.priority, spent: item.spent, budget: budget.perHour(app: app, deviceFrequentUpdates: item.frequentUpdates),
                    final: item.final)
                let downgraded = item.priority == 10 && !immediate
                let push = DevicePush(
                    token: item.token, topic: DevicePush.liveActivityTopic(bundleID: app.bundleID), pushType: .liveActivity,
                    priority: immediate ? .immediate : .opportunistic, payload: item.payload)
                group.addTask {
                    do {
                        let response = try await apns.client(for: credentials).sendToDevice(push, credentials: credentials)
                        return Outcome(claimed: item, verdict: DevicePushVerdict.classify(status: response.status, reason: response.reason),
                                       retryAfter: response.retryAfterSeconds.map(Double.init), immediate: immediate, downgraded: downgraded,
                                       bundleID: app.bundleID)
                    } catch {
                        // An update may safely be sent twice (the device drops an equal timestamp).
                        return Outcome(claimed: item, verdict: .retry(reason: "Transport"), retryAfter: nil)
                    }
                }
            }
            var outcomes: [Outcome] = []
            for await outcome in group { outcomes.append(outcome) }
            return outcomes
        }
    }

    /// Writes the outcomes back as of `now`.
    private func complete(_ outcomes: [Outcome], owner: String, now: Date) async throws {
        var random = SystemRandomNumberGenerator()
        try await pool.withTransaction { connection in
            for outcome in outcomes {
                let item = outcome.claimed
                switch outcome.verdict {
                case .delivered:
                    metrics?.updates.increment(.init(outcome: "sent", reason: ""))
                    if outcome.downgraded { metrics?.downgraded.increment(AppLabels(app: outcome.bundleID)) }
                    try await connection.execute("""
                        UPDATE activity_tokens SET last_timestamp = GREATEST(last_timestamp, \(item.timestamp)),
                            downgraded = downgraded + \(outcome.downgraded ? 1 : 0)
                        WHERE id = \(item.tokenID)
                        """)
                    if outcome.immediate { try await spendBudget(item, now: now, on: connection) }
                    try await connection.execute("""
                        DELETE FROM activity_outbox WHERE activity_token_id = \(item.tokenID) AND version = \(item.version) AND lease_owner = \(owner)
                        """)
                case .pruneToken(let reason):
                    metrics?.updates.increment(.init(outcome: "failed", reason: reason))
                    metrics?.pruned.increment(.init(kind: "activity", reason: reason))
                    // `updated_at` is an audit column (no rule reads it): it keeps the database's clock.
                    try await connection.execute("""
                        UPDATE activity_tokens SET status = 'pruned', pruned_reason = \(reason), updated_at = now()
                        WHERE id = \(item.tokenID) AND token = \(item.token)
                        """)
                    try await connection.execute("DELETE FROM activity_outbox WHERE activity_token_id = \(item.tokenID) AND lease_owner = \(owner)")
                case .fail(let reason):
                    metrics?.updates.increment(.init(outcome: "failed", reason: reason))
                    try await connection.execute("""
                        DELETE FROM activity_outbox WHERE activity_token_id = \(item.tokenID) AND version = \(item.version) AND lease_owner = \(owner)
                        """)
                    try await release(item, owner: owner, delay: 0, error: reason, now: now, on: connection)
                case .retry(let reason):
                    let again = Self.retry.allowsRetry(afterAttempt: item.attempts)
                    metrics?.updates.increment(.init(outcome: again ? "retried" : "failed", reason: reason))
                    if again {
                        let delay = Self.retry.delay(afterAttempt: item.attempts, retryAfter: outcome.retryAfter, using: &random)
                        try await release(item, owner: owner, delay: delay, error: reason, now: now, on: connection)
                    } else {
                        try await connection.execute("""
                            DELETE FROM activity_outbox WHERE activity_token_id = \(item.tokenID) AND version = \(item.version) AND lease_owner = \(owner)
                            """)
                        try await release(item, owner: owner, delay: 0, error: reason, now: now, on: connection)
                    }
                }
            }
        }
    }

    /// Records a priority-10 update delivered to the activity at `now`, dropping its sends older
    /// than the rolling hour.
    private func spendBudget(_ item: Claimed, now: Date, on connection: PostgresConnection) async throws {
        try await connection.execute("""
            DELETE FROM activity_priority_sends WHERE activity_token_id = \(item.tokenID) AND sent_at <= \(now)::timestamptz - make_interval(secs => \(ActivityBudget.window))
            """)
        try await connection.execute("INSERT INTO activity_priority_sends (activity_token_id, sent_at) VALUES (\(item.tokenID), \(now))")
    }

    /// Gives the row back (a newer version, or a retry `delay` seconds after `now`).
    private func release(
        _ item: Claimed, owner: String, delay: Double, error: String, now: Date, on connection: PostgresConnection
    ) async throws {
        try await connection.execute("""
            UPDATE activity_outbox SET lease_owner = NULL, lease_expires_at = NULL, last_error = \(error),
                due_at = CASE WHEN version = \(item.version) THEN \(now)::timestamptz + make_interval(secs => \(delay)) ELSE due_at END,
                attempts = CASE WHEN version = \(item.version) THEN attempts ELSE 0 END
            WHERE activity_token_id = \(item.tokenID) AND lease_owner = \(owner)
            """)
    }
}
