import Foundation
import Logging
import Postgres

/// The worker pool's SQL: claiming due outbox rows under a lease, completing sends in one
/// fenced transaction per batch, and giving leases back.
///
/// Every write that follows a send is fenced on (channel, lease owner) under a row lock, and the
/// row is deleted only when its version is still the one sent: a worker whose lease expired
/// (and was taken over) changes nothing, and an event that arrived during the send stays pending.
public struct OutboxStore: Sendable {
    /// The channel statuses whose rows are sent. `retiring` channels still exist at APNs and
    /// their game's last update (`event: end`) must reach them before the poller deletes them.
    public static let sendableChannelStatuses = ["active", "retiring"]

    private let pool: PostgresPool
    private let logger: Logger

    /// Creates a store on `pool`.
    public init(pool: PostgresPool, logger: Logger) {
        self.pool = pool
        self.logger = logger
    }

    // MARK: - Claim

    /// Claims up to `limit` due rows for `owner` until now + `lease`: rows whose `due_at` and
    /// backoff have passed, not leased (or whose lease expired: the rescue of a dead worker's
    /// work), of sendable channels of unpaused apps, oldest due first, skipping rows another
    /// transaction holds and the channels in `excluding` (this process's own sends in flight).
    public func claim(owner: String, limit: Int, lease: Duration, excluding: [Int64] = []) async throws -> [ClaimedDelivery] {
        let rows = try await pool.query("""
            WITH picked AS (
                SELECT o.channel_id
                FROM outbox o
                JOIN channels c ON c.id = o.channel_id
                JOIN apps a ON a.id = c.app_id
                WHERE o.due_at <= now()
                  AND (o.not_before IS NULL OR o.not_before <= now())
                  AND (o.lease_owner IS NULL OR o.lease_expires_at < now())
                  AND c.status = ANY(\(Self.sendableChannelStatuses))
                  AND a.paused_at IS NULL
                  AND o.channel_id <> ALL(\(excluding))
                ORDER BY o.due_at
                LIMIT \(max(1, limit))
                FOR UPDATE OF o SKIP LOCKED
            ), claimed AS (
                UPDATE outbox o
                SET lease_owner = \(owner),
                    lease_expires_at = now() + make_interval(secs => \(lease.seconds)),
                    updated_at = now()
                FROM picked
                WHERE o.channel_id = picked.channel_id
                RETURNING o.channel_id, o.version, o.payload, o.payload_timestamp, o.priority, o.alerting,
                          o.event_ids, o.first_ingested_at, o.coalesced, o.attempts, o.lease_owner, o.due_at
            )
            SELECT claimed.*, now() AS claimed_at, c.apns_channel_id, c.storage_policy, c.last_timestamp,
                   a.id AS app_id, a.bundle_id, a.environment, a.team_id, a.key_id, a.key_path,
                   a.frequent_updates, a.budget_per_hour,
                   b.window_start AS budget_window_start, b.high_priority_sent AS budget_high_priority_sent,
                   b.downgraded AS budget_downgraded, b.throttled AS budget_throttled, b.budget_limit,
                   b.shrunk_limit AS budget_shrunk_limit, b.last_throttled_at AS budget_last_throttled_at
            FROM claimed
            JOIN channels c ON c.id = claimed.channel_id
            JOIN apps a ON a.id = c.app_id
            LEFT JOIN LATERAL (
                SELECT * FROM channel_budget cb
                WHERE cb.channel_id = claimed.channel_id
                ORDER BY cb.window_start DESC
                LIMIT 1
            ) b ON true
            ORDER BY claimed.due_at, claimed.channel_id
            """)
        return try rows.map(ClaimedDelivery.init(row:))
    }

    /// Seconds until the next row becomes claimable (negative when one already is), or `nil`
    /// when nothing sendable is pending. Rows leased to live workers count from their lease's
    /// expiry (their rescue time).
    public func secondsUntilNextDue() async throws -> Double? {
        let rows = try await pool.query("""
            SELECT EXTRACT(EPOCH FROM (min(GREATEST(o.due_at, COALESCE(o.not_before, o.due_at),
                                                    COALESCE(o.lease_expires_at, o.due_at))) - now()))::float8 AS wait
            FROM outbox o
            JOIN channels c ON c.id = o.channel_id
            JOIN apps a ON a.id = c.app_id
            WHERE c.status = ANY(\(Self.sendableChannelStatuses)) AND a.paused_at IS NULL
            """)
        return try rows.first?.decode("wait", as: Double?.self)
    }

    // MARK: - Release

    /// Gives back the leases `owner` holds on `channelIDs` (rows claimed but not sent), changing
    /// nothing else. Returns how many rows were released.
    @discardableResult
    public func release(channelIDs: [Int64], owner: String) async throws -> Int {
        guard !channelIDs.isEmpty else { return 0 }
        return try await pool.execute("""
            UPDATE outbox SET lease_owner = NULL, lease_expires_at = NULL, updated_at = now()
            WHERE channel_id = ANY(\(channelIDs)) AND lease_owner = \(owner)
            """)
    }

    /// Gives back every lease held by an owner whose id starts with `ownerPrefix` (a process's
    /// workers at shutdown). Returns how many rows were released.
    @discardableResult
    public func releaseAll(ownerPrefix: String) async throws -> Int {
        try await pool.execute("""
            UPDATE outbox SET lease_owner = NULL, lease_expires_at = NULL, updated_at = now()
            WHERE lease_owner IS NOT NULL AND starts_with(lease_owner, \(ownerPrefix))
            """)
    }

    // MARK: - Complete

    /// An app a completion paused.
    public struct PausedApp: Sendable, Hashable {
        /// `apps.id`.
        public var id: Int64
        /// Its bundle id, for the log line.
        public var bundleID: String
    }

    /// What a batch completion did.
    public struct CompletionResult: Sendable, Hashable {
        /// Channels whose completion was dropped because `owner` no longer held their row (the
        /// lease expired and another worker took it, or the row is gone).
        public var fencedOut: [Int64] = []
        /// Rows deleted (sent or failed for good, version unchanged; or channel gone).
        public var deleted: [Int64] = []
        /// Rows released because a newer payload arrived during the send.
        public var superseded: [Int64] = []
        /// Apps paused by this completion (they were not paused before).
        public var newlyPausedApps: [PausedApp] = []
        /// Deliveries rows written.
        public var deliveriesWritten = 0
    }

    /// Writes the completions of one batch of `owner`'s sends in one transaction: each is
    /// applied only if `owner` still holds the row (checked under a row lock, in channel order
    /// so that concurrent writers cannot deadlock on it). `routineInterval` (seconds) spaces a
    /// routine payload that arrived during a send after the one just sent.
    ///
    /// A deadlock or serialization failure is retried (twice); other errors are thrown and
    /// nothing is written.
    @discardableResult
    public func complete(_ completions: [DeliveryCompletion], owner: String, routineInterval: Double) async throws -> CompletionResult {
        guard !completions.isEmpty else { return CompletionResult() }
        var attempt = 0
        while true {
            attempt += 1
            do {
                return try await pool.withTransaction { connection in
                    try await Self.complete(completions, owner: owner, routineInterval: routineInterval, on: connection)
                }
            } catch let error as PostgresError
                where attempt < 3
                && (error.sqlState == PostgresError.SQLState.deadlockDetected || error.sqlState == PostgresError.SQLState.serializationFailure)
            {
                logger.notice("completion transaction hit a \(error.sqlState ?? "") conflict; retrying", ["attempt": String(attempt)])
            }
        }
    }

    private static func complete(
        _ completions: [DeliveryCompletion], owner: String, routineInterval: Double, on connection: PostgresConnection
    ) async throws -> CompletionResult {
        var result = CompletionResult()
        // The fence: rows still held by `owner`, locked, with their current version.
        let ids = completions.map(\.channelID)
        let held = try await connection.query("""
            SELECT channel_id, version FROM outbox
            WHERE channel_id = ANY(\(ids)) AND lease_owner = \(owner)
            ORDER BY channel_id
            FOR UPDATE
            """)
        var currentVersion: [Int64: Int64] = [:]
        for row in held { currentVersion[try row.decode("channel_id")] = try row.decode("version") }

        var kept: [DeliveryCompletion] = []
        for completion in completions {
            if currentVersion[completion.channelID] == nil {
                result.fencedOut.append(completion.channelID)
            } else {
                kept.append(completion)
            }
        }
        guard !kept.isEmpty else { return result }

        // Which rows go and which are given back (and how).
        var deleteIDs: [Int64] = []
        var releaseIDs: [Int64] = []
        var releaseKinds: [String] = []
        var releaseDelays: [Double] = []
        var releaseErrors: [String?] = []
        var releaseClaimedEvents: [String] = []
        var releaseClaimedCoalesced: [Int] = []
        var releaseClaimedAt: [Date?] = []
        for completion in kept {
            let unchanged = currentVersion[completion.channelID] == completion.claimedVersion
            switch completion.action {
            case .finish where unchanged, .cancelChannel:
                deleteIDs.append(completion.channelID)
            case .finish:
                result.superseded.append(completion.channelID)
                releaseIDs.append(completion.channelID)
                releaseKinds.append("finished")
                releaseDelays.append(0)
                releaseErrors.append(nil)
            case .retry(let delay, let error):
                releaseIDs.append(completion.channelID)
                releaseKinds.append("retry")
                releaseDelays.append(max(0, delay))
                releaseErrors.append(error)
            case .pauseApp, .release:
                releaseIDs.append(completion.channelID)
                releaseKinds.append("release")
                releaseDelays.append(0)
                releaseErrors.append(nil)
            }
            if releaseClaimedEvents.count < releaseIDs.count {
                releaseClaimedEvents.append(Self.arrayLiteral(completion.claimedEventIDs))
                releaseClaimedCoalesced.append(completion.claimedCoalesced)
                releaseClaimedAt.append(completion.claimedAt)
            }
        }

        result.deliveriesWritten = try await insertDeliveries(kept, on: connection)
        if !deleteIDs.isEmpty {
            try await connection.execute("DELETE FROM outbox WHERE channel_id = ANY(\(deleteIDs)) AND lease_owner = \(owner)")
            result.deleted = deleteIDs
        }
        if !releaseIDs.isEmpty {
            // A row superseded during its send keeps only what the send did not carry: the
            // events that came after the claim, the updates coalesced since, and the ingest time
            // of its oldest remaining event (from `events`, else the claim time, a lower bound).
            try await connection.execute("""
                UPDATE outbox o SET
                    lease_owner = NULL,
                    lease_expires_at = NULL,
                    updated_at = now(),
                    attempts = CASE u.kind WHEN 'retry' THEN o.attempts + 1 WHEN 'finished' THEN 0 ELSE o.attempts END,
                    not_before = CASE u.kind
                        WHEN 'retry' THEN now() + make_interval(secs => u.delay)
                        WHEN 'finished' THEN NULL
                        ELSE o.not_before END,
                    last_error = CASE u.kind WHEN 'retry' THEN u.error WHEN 'finished' THEN NULL ELSE o.last_error END,
                    due_at = CASE WHEN u.kind = 'finished' AND NOT o.alerting
                        THEN GREATEST(o.due_at, now() + make_interval(secs => \(routineInterval)))
                        ELSE o.due_at END,
                    event_ids = CASE WHEN u.kind = 'finished'
                        THEN ARRAY(SELECT t.e FROM unnest(o.event_ids) WITH ORDINALITY AS t(e, n)
                                   WHERE t.e <> ALL(u.claimed_events::bigint[]) ORDER BY t.n)
                        ELSE o.event_ids END,
                    coalesced = CASE WHEN u.kind = 'finished'
                        THEN GREATEST(0, o.coalesced - u.claimed_coalesced - 1)
                        ELSE o.coalesced END,
                    first_ingested_at = CASE WHEN u.kind = 'finished'
                        THEN COALESCE(
                            (SELECT min(ev.received_at) FROM events ev
                             WHERE ev.id = ANY(o.event_ids) AND ev.id <> ALL(u.claimed_events::bigint[])),
                            GREATEST(o.first_ingested_at, u.claimed_at))
                        ELSE o.first_ingested_at END
                FROM unnest(\(releaseIDs)::bigint[], \(releaseKinds)::text[], \(releaseDelays)::float8[], \(releaseErrors)::text[],
                            \(releaseClaimedEvents)::text[], \(releaseClaimedCoalesced)::int8[], \(releaseClaimedAt)::timestamptz[])
                    AS u(channel_id, kind, delay, error, claimed_events, claimed_coalesced, claimed_at)
                WHERE o.channel_id = u.channel_id AND o.lease_owner = \(owner)
                """)
        }

        let sent = kept.compactMap { completion in completion.sentTimestamp.map { (completion.channelID, $0) } }
        if !sent.isEmpty {
            try await connection.execute("""
                UPDATE channels c SET last_timestamp = GREATEST(c.last_timestamp, u.ts), last_sent_at = now(), updated_at = now()
                FROM unnest(\(sent.map(\.0))::bigint[], \(sent.map(\.1))::bigint[]) AS u(id, ts)
                WHERE c.id = u.id
                """)
        }
        let goneIDs = kept.filter { $0.action == .cancelChannel }.map(\.channelID)
        if !goneIDs.isEmpty {
            try await connection.execute("""
                UPDATE channels SET status = 'gone', updated_at = now()
                WHERE id = ANY(\(goneIDs)) AND status IN ('active', 'retiring')
                """)
        }
        try await writeBudgets(kept, on: connection)

        var pauses: [Int64: String] = [:]
        for completion in kept {
            if case .pauseApp(let reason) = completion.action, pauses[completion.appID] == nil {
                pauses[completion.appID] = reason
            }
        }
        if !pauses.isEmpty {
            let appIDs = pauses.keys.sorted()
            let paused = try await connection.query("""
                UPDATE apps a SET paused_reason = u.reason, paused_at = now(), updated_at = now()
                FROM unnest(\(appIDs)::bigint[], \(appIDs.map { pauses[$0] ?? "" })::text[]) AS u(id, reason)
                WHERE a.id = u.id AND a.paused_at IS NULL
                RETURNING a.id, a.bundle_id
                """)
            result.newlyPausedApps = try paused.map { PausedApp(id: try $0.decode("id"), bundleID: try $0.decode("bundle_id")) }
        }
        return result
    }

    private static func insertDeliveries(_ completions: [DeliveryCompletion], on connection: PostgresConnection) async throws -> Int {
        let rows = completions.compactMap { completion in completion.delivery.map { (completion, $0) } }
        guard !rows.isEmpty else { return 0 }
        // event_ids is an array per row: each travels as its array literal and is cast back.
        let eventIDs = rows.map { arrayLiteral($0.1.eventIDs) }
        return try await connection.execute("""
            INSERT INTO deliveries (channel_id, app_id, event_ids, outbox_version, requested_priority, priority,
                                    downgraded, coalesced, attempt, outcome, status_code, reason, apns_request_id,
                                    apns_unique_id, apns_latency_ms, ingest_to_send_ms)
            SELECT u.channel_id, u.app_id, u.event_ids::bigint[], u.outbox_version, u.requested_priority, u.priority,
                   u.downgraded, u.coalesced, u.attempt, u.outcome, u.status_code, u.reason, u.request_id,
                   u.unique_id, u.latency, u.ingest
            FROM unnest(\(rows.map(\.0.channelID))::bigint[], \(rows.map(\.0.appID))::bigint[], \(eventIDs)::text[],
                        \(rows.map(\.1.outboxVersion))::bigint[], \(rows.map { $0.1.requestedPriority.rawValue })::int2[],
                        \(rows.map { $0.1.priority.rawValue })::int2[], \(rows.map(\.1.downgraded))::bool[],
                        \(rows.map(\.1.coalesced))::int4[], \(rows.map(\.1.attempt))::int4[],
                        \(rows.map(\.1.outcome.rawValue))::text[], \(rows.map(\.1.statusCode))::int4[],
                        \(rows.map(\.1.reason))::text[], \(rows.map(\.1.apnsRequestID))::text[],
                        \(rows.map(\.1.apnsUniqueID))::text[], \(rows.map(\.1.apnsLatencyMilliseconds))::float8[],
                        \(rows.map(\.1.ingestToSendMilliseconds))::float8[])
                AS u(channel_id, app_id, event_ids, outbox_version, requested_priority, priority, downgraded, coalesced,
                     attempt, outcome, status_code, reason, request_id, unique_id, latency, ingest)
            """)
    }

    /// `{1,2,3}`: the literal of a bigint array, for arrays of arrays sent through `unnest`.
    private static func arrayLiteral(_ values: [Int64]) -> String {
        "{" + values.map(String.init).joined(separator: ",") + "}"
    }

    private static func writeBudgets(_ completions: [DeliveryCompletion], on connection: PostgresConnection) async throws {
        let rows = completions.compactMap { completion in completion.budget.map { (completion.channelID, $0) } }
        guard !rows.isEmpty else { return }
        try await connection.execute("""
            INSERT INTO channel_budget (channel_id, window_start, high_priority_sent, downgraded, throttled, budget_limit,
                                        shrunk_limit, last_throttled_at)
            SELECT * FROM unnest(\(rows.map(\.0))::bigint[], \(rows.map(\.1.windowStart))::timestamptz[],
                                 \(rows.map(\.1.highPrioritySent))::int4[], \(rows.map(\.1.downgraded))::int4[],
                                 \(rows.map(\.1.throttled))::int4[], \(rows.map(\.1.budgetLimit))::int4[],
                                 \(rows.map(\.1.shrunkLimit))::int4[], \(rows.map(\.1.lastThrottledAt))::timestamptz[])
            ON CONFLICT (channel_id, window_start) DO UPDATE SET
                high_priority_sent = EXCLUDED.high_priority_sent,
                downgraded = EXCLUDED.downgraded,
                throttled = EXCLUDED.throttled,
                budget_limit = EXCLUDED.budget_limit,
                shrunk_limit = EXCLUDED.shrunk_limit,
                last_throttled_at = EXCLUDED.last_throttled_at
            """)
    }
}

extension Duration {
    /// The duration in seconds, as a `Double`.
    var seconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
