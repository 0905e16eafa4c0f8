import DeliveryEngine
import Foundation
import LeasedQueue
import ScorecastLogging
import Postgres
import ScorecastCore
import ServiceBase

/// The worker pool's SQL: claiming due outbox rows under a lease, completing sends in one
/// fenced transaction per batch, and giving leases back.
///
/// Every write that follows a send is fenced on (channel, lease owner) under a row lock, and the
/// row is deleted only when its version is still the one sent: a worker whose lease expired
/// (and was taken over) changes nothing, and an event that arrived during the send stays pending.
package struct OutboxStore: Sendable {
    /// The channel statuses whose rows are sent. `retiring` channels still exist at APNs and
    /// their game's last update (`event: end`) must reach them before the poller deletes them.
    package static let sendableChannelStatuses = ["active", "retiring"]

    /// The same statuses as an SQL list of literals, for statements that have no other
    /// parameter: a statement without parameters is planned once per connection, while one
    /// whose only parameter is this constant list was planned again on most executions
    /// (Postgres judged its custom plans cheaper than the generic one).
    private static let sendableChannelStatusList = SQL.unsafeSQL(
        sendableChannelStatuses.map { "'\($0)'" }.joined(separator: ", "))

    let pool: PostgresPool
    let logger: Logger

    /// Creates a store on `pool`.
    package init(pool: PostgresPool, logger: Logger) {
        self.pool = pool
        self.logger = logger
    }

    // MARK: - Claim

    /// Claims up to `limit` due rows for `owner` until `now` + `lease` (recording the version
    /// claimed in `claimed_version`, so ingest can tell the content in flight from a newer one
    /// that replaced it): rows whose `due_at` and
    /// backoff have passed, not leased (or whose lease expired: the rescue of a dead worker's
    /// work), of sendable channels of unpaused apps, alerting rows first and then the rest,
    /// each oldest due first (goals do not wait behind routine updates), skipping rows another
    /// transaction holds and the channels in `excluding` (this process's own sends in flight).
    /// A circuit breaker's probe claims with `ignoringBackoff`: rows back off because the host
    /// failed, not because of anything they carry. It is the queue's one claim
    /// (``LeasedQueue``), run under `ReusablePlans`, in a transaction of its own sent with
    /// `BEGIN` in one round trip. `now` is the caller's clock, bound as a parameter: due times,
    /// backoffs and leases are all compared with it, and the lease it writes is dated by it,
    /// so one clock decides whether a lease has run out. Each row comes
    /// with its channel's budget ledger as `budgetPolicy` windows it (``BudgetLedger``).
    package func claim(
        owner: String, limit: Int, lease: Duration, excluding: [Int64] = [], ignoringBackoff: Bool = false, at now: Date,
        budgetPolicy: BudgetPolicy = BudgetPolicy()
    ) async throws -> [ClaimedDelivery] {
        try await claim(
            LeasedQueue.Pick(
                columns: Self.pickedColumns, joins: Self.pickedJoins,
                condition: """
                    o.due_at <= \(now)
                      AND (o.not_before IS NULL OR o.not_before <= \(now) OR \(ignoringBackoff))
                      AND \(Self.queue.isFree(at: now))
                      AND c.status = ANY(\(Self.sendableChannelStatuses))
                      AND a.paused_at IS NULL
                      AND o.channel_id <> ALL(\(excluding))
                    """,
                order: "o.alerting DESC, o.due_at", limit: limit),
            owner: owner, lease: lease, at: now, budgetPolicy: budgetPolicy)
    }

    /// Claims the rows ingest leased to `owner` and handed over in memory (``AlertHandOff``):
    /// the same claim as ``claim(owner:limit:lease:excluding:ignoringBackoff:at:budgetPolicy:)``
    /// (the lease renewed from `now`, the version recorded, the row read as it stands now), of
    /// the rows among `channelIDs` that `owner` still holds, whose channel is sendable and
    /// whose app is not paused. A row that is not returned keeps ingest's lease until it runs
    /// out: the caller gives it back.
    package func claimHandedOver(
        _ channelIDs: [Int64], owner: String, lease: Duration, at now: Date, budgetPolicy: BudgetPolicy = BudgetPolicy()
    ) async throws -> [ClaimedDelivery] {
        guard !channelIDs.isEmpty else { return [] }
        return try await claim(
            LeasedQueue.Pick(
                columns: Self.pickedColumns, joins: Self.pickedJoins,
                condition: """
                    o.channel_id = ANY(\(channelIDs)) AND \(Self.queue.isHeld(by: owner))
                      AND c.status = ANY(\(Self.sendableChannelStatuses))
                      AND a.paused_at IS NULL
                    """,
                order: "o.channel_id", skipsLocked: false),
            owner: owner, lease: lease, at: now, budgetPolicy: budgetPolicy)
    }

    /// The queue's rows, the outbox.
    static let queue = LeasedQueue.outbox
    /// What a release clears besides the lease: the version the claim recorded (`updated_at`
    /// is an audit column no rule reads; it keeps the database's clock).
    private static let unclaimed: SQL = "claimed_version = NULL, updated_at = now()"
    /// What a claim reads of a row's channel and app, found by index as the rows are picked;
    /// joining the claimed rows to `channels` again made Postgres hash all of `channels` per
    /// claim (2.1 → 1.45 ms per 60-row claim at 4,000 channels, EXPLAIN ANALYZE).
    private static let pickedColumns: SQL = """
        c.apns_channel_id, c.storage_policy, c.last_timestamp, c.last_shown,
        a.id AS app_id, a.bundle_id, a.environment, a.team_id, a.key_id, a.key_path,
        a.frequent_updates, a.budget_per_hour, a.dismissal_delay_seconds
        """
    private static let pickedJoins: SQL = "JOIN channels c ON c.id = o.channel_id JOIN apps a ON a.id = c.app_id"

    /// The claim: the rows `pick` selects are leased to `owner` from `now` for `lease`, their
    /// version recorded, and read with their channel, app and budget ledger.
    private func claim(_ pick: LeasedQueue.Pick, owner: String, lease: Duration, at now: Date, budgetPolicy: BudgetPolicy) async throws -> [ClaimedDelivery] {
        let claim = Self.queue.claim(
            pick, owner: owner, lease: lease, at: now, setting: "claimed_version = o.version, updated_at = now()",
            returning: """
                o.channel_id, o.version, o.payload, o.payload_timestamp, o.priority, o.alerting, o.alerts,
                o.event_ids, o.first_ingested_at, o.coalesced, o.attempts, o.lease_owner, o.due_at,
                o.not_before, o.last_error
                """)
        let statement: SQL = """
            WITH \(claim)
            SELECT claimed.*, \(now)::timestamptz AS claimed_at, p.apns_channel_id, p.storage_policy, p.last_timestamp, p.last_shown,
                   p.app_id, p.bundle_id, p.environment, p.team_id, p.key_id, p.key_path,
                   p.frequent_updates, p.budget_per_hour, p.dismissal_delay_seconds, \(BudgetLedger.columns),
                   COALESCE((SELECT e.kind = 'final' FROM events e WHERE e.id = (claimed.alerts -> 0 ->> 'key')::bigint), false)
                       AS head_alert_final
            FROM claimed
            JOIN picked p ON p.channel_id = claimed.channel_id
            \(BudgetLedger.joins(channelID: "claimed.channel_id", now: now, policy: budgetPolicy))
            ORDER BY claimed.alerting DESC, claimed.due_at, claimed.channel_id
            """
        let rows = try await pool.withTransaction(localSettings: ReusablePlans.settings, opening: [statement]) { _, opened in
            opened[0].rows
        }
        return try rows.map(ClaimedDelivery.init(row:))
    }

    /// Seconds until the next row becomes claimable (negative when one already is), or `nil`
    /// when nothing sendable waits unleased. Workers ask this each time they find nothing to
    /// claim, so it walks the claim's index (alerting rows, then the rest, each by `due_at`)
    /// and looks at the first few sendable rows of each only: when all of those are backing
    /// off, a row further on may fall due sooner, and it is found on the next poll instead. A row whose lease has run out (its worker died) is
    /// claimable like an unleased one, so workers take it over within a poll interval of the
    /// lease's end without waiting for the poller's rescue (a deployment may run no poller
    /// beside its workers for a while). `now` is the claim's clock, bound as a parameter; under
    /// `ReusablePlans`, so the parameter does not make Postgres plan each look afresh.
    package func secondsUntilNextDue(at now: Date) async throws -> Double? {
        func firstSendable(alerting: Bool) -> SQL {
            """
            (SELECT o.due_at, o.not_before
             FROM outbox o
             JOIN channels c ON c.id = o.channel_id
             JOIN apps a ON a.id = c.app_id
             WHERE o.alerting = \(unsafeSQL: alerting ? "true" : "false") AND \(Self.queue.isFree(at: now))
               AND c.status IN (\(Self.sendableChannelStatusList)) AND a.paused_at IS NULL
             ORDER BY o.due_at
             LIMIT 32)
            """
        }
        let look: SQL = """
            SELECT EXTRACT(EPOCH FROM (min(GREATEST(o.due_at, COALESCE(o.not_before, o.due_at))) - \(now)::timestamptz))::float8 AS wait
            FROM (\(firstSendable(alerting: true)) UNION ALL \(firstSendable(alerting: false))) o
            """
        let rows = try await pool.withTransaction(localSettings: ReusablePlans.settings, opening: [look]) { _, opened in
            opened[0].rows
        }
        return try rows.first?.decode("wait", as: Double?.self)
    }

    /// Extends `owner`'s leases on `channelIDs` to `now` + `lease` (the heartbeat of a long
    /// send; `now` from the same clock as the claim's). Returns how many rows it still held.
    @discardableResult
    package func extendLeases(channelIDs: [Int64], owner: String, lease: Duration, at now: Date) async throws -> Int {
        guard !channelIDs.isEmpty else { return 0 }
        return try await pool.execute(Self.queue.extend(channelIDs, owner: owner, lease: lease, at: now))
    }

    /// Lets every unleased row's backoff go (the APNs host answers again: the rows backed off
    /// because of it). Returns how many rows became claimable; `now` is the claim's clock.
    @discardableResult
    package func releaseBackoffs(at now: Date) async throws -> Int {
        try await pool.execute("""
            UPDATE outbox SET not_before = NULL, updated_at = now()
            WHERE not_before > \(now) AND lease_owner IS NULL
            """)
    }

    // MARK: - Release

    /// Gives back the leases `owner` holds on `channelIDs` (rows claimed but not sent), changing
    /// nothing else. Returns how many rows were released.
    @discardableResult
    package func release(channelIDs: [Int64], owner: String) async throws -> Int {
        guard !channelIDs.isEmpty else { return 0 }
        return try await pool.execute(Self.queue.release(channelIDs, owner: owner, setting: Self.unclaimed))
    }

    /// Gives back every lease held by an owner whose id starts with `ownerPrefix` (a process's
    /// workers at shutdown). Returns how many rows were released.
    @discardableResult
    package func releaseAll(ownerPrefix: String) async throws -> Int {
        try await pool.execute(Self.queue.releaseAll(ownerPrefix: ownerPrefix, setting: Self.unclaimed))
    }
}
