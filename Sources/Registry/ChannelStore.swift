import APNsCore
import Foundation
import Postgres
import ScorecastCore

/// The registry's SQL for `channels`, `channel_bindings` and `channel_orphans`. Every write
/// of more than one statement runs in one transaction.
package struct ChannelStore: Sendable {
    let pool: PostgresPool

    /// Creates a store on `pool`.
    package init(pool: PostgresPool) { self.pool = pool }

    /// What `list` returns.
    package struct Filter: Sendable, Hashable {
        /// Only channels bound to this game.
        package var gameID: String?
        /// Only channels of these apps (nil: every app).
        package var appIDs: [Int64]?
        /// Only channels in this status.
        package var status: ChannelRecord.Status?

        /// Creates a filter; nil fields do not filter.
        package init(gameID: String? = nil, appIDs: [Int64]? = nil, status: ChannelRecord.Status? = nil) {
            self.gameID = gameID
            self.appIDs = appIDs
            self.status = status
        }
    }

    // MARK: - Reading

    /// Channels matching `filter`, newest first, at most `limit`.
    package func list(_ filter: Filter, limit: Int = 10_000) async throws -> [ChannelListing] {
        try await pool.query("""
            SELECT \(unsafeSQL: ChannelListing.columns)
            FROM channels c JOIN apps a ON a.id = c.app_id
            WHERE (\(filter.status?.rawValue as String?)::text IS NULL OR c.status = \(filter.status?.rawValue as String?))
              AND (\(filter.appIDs as [Int64]?)::bigint[] IS NULL OR c.app_id = ANY(\(filter.appIDs as [Int64]?)))
              AND (\(filter.gameID as String?)::text IS NULL
                   OR EXISTS (SELECT 1 FROM channel_bindings b WHERE b.channel_id = c.id AND b.game_id = \(filter.gameID as String?)))
            ORDER BY c.id DESC
            LIMIT \(limit)
            """).map(ChannelListing.init(row:))
    }

    /// The channel with registry id `id`, or nil.
    package func find(id: Int64) async throws -> ChannelListing? {
        try await pool.withConnection { try await find(id: id, on: $0) }
    }

    func find(id: Int64, on connection: PostgresConnection) async throws -> ChannelListing? {
        try await connection.query("""
            SELECT \(unsafeSQL: ChannelListing.columns) FROM channels c JOIN apps a ON a.id = c.app_id WHERE c.id = \(id)
            """).first.map(ChannelListing.init(row:))
    }

    /// The channels with this APNs id (one per app at most), byte for byte.
    package func find(apnsChannelID: String) async throws -> [ChannelListing] {
        try await pool.query("""
            SELECT \(unsafeSQL: ChannelListing.columns) FROM channels c JOIN apps a ON a.id = c.app_id
            WHERE c.apns_channel_id = \(apnsChannelID) ORDER BY c.id
            """).map(ChannelListing.init(row:))
    }

    /// How many channels count against app `appID`'s limit: live ones (`active`, `retiring`)
    /// and recorded orphans, which still exist at APNs.
    package func countAgainstLimit(appID: Int64) async throws -> Int {
        try await pool.withConnection { try await countAgainstLimit(appID: appID, on: $0) }
    }

    func countAgainstLimit(appID: Int64, on connection: PostgresConnection) async throws -> Int {
        let rows = try await connection.query("""
            SELECT (SELECT count(*) FROM channels WHERE app_id = \(appID) AND status IN ('active', 'retiring'))
                 + (SELECT count(*) FROM channel_orphans WHERE app_id = \(appID)) AS n
            """)
        return try rows.first?.decode("n", as: Int.self) ?? 0
    }

    /// The live channels of app `appID` bound to game `gameID` for `tier` (`standard`, or
    /// `light` for devices with frequent updates off).
    package func liveChannels(gameID: String, appID: Int64, tier: String = "standard") async throws -> [ChannelRecord] {
        try await pool.withConnection { try await liveChannels(gameID: gameID, appID: appID, tier: tier, on: $0) }
    }

    func liveChannels(gameID: String, appID: Int64, tier: String = "standard", on connection: PostgresConnection) async throws -> [ChannelRecord] {
        try await connection.query("""
            SELECT \(unsafeSQL: Self.prefixed("c")) FROM channels c JOIN channel_bindings b ON b.channel_id = c.id
            WHERE b.game_id = \(gameID) AND c.app_id = \(appID) AND c.status IN ('active', 'retiring') AND b.tier = \(tier)
            ORDER BY c.id
            """).map(ChannelRecord.init(row:))
    }

    /// Every channel of apps with bundle id `bundleID` (any environment, any status), for
    /// reconciliation: `ownedByApp` marks those of app `appID`.
    func reconcileView(bundleID: String, appID: Int64, on connection: PostgresConnection) async throws -> [ReconcileDiff.RegistryChannel] {
        try await connection.query("""
            SELECT c.id, c.apns_channel_id, c.status, c.app_id FROM channels c JOIN apps a ON a.id = c.app_id
            WHERE a.bundle_id = \(bundleID) ORDER BY c.id
            """).map { row in
            let statusName: String = try row.decode("status")
            guard let status = ChannelRecord.Status(rawValue: statusName) else {
                throw PostgresError(.decodingFailed, "channels.status holds an unknown value", column: "status")
            }
            return ReconcileDiff.RegistryChannel(
                id: try row.decode("id"), apnsChannelID: try row.decode("apns_channel_id"), status: status,
                ownedByApp: try row.decode("app_id", as: Int64.self) == appID)
        }
    }

    /// The active channels of game `gameID` for apps with bundle id `bundleID` (in
    /// `environment` when given): what an iOS app subscribes to.
    package func subscribable(gameID: String, bundleID: String, environment: APNsEnvironment?) async throws -> [SubscribableChannel] {
        try await pool.query("""
            SELECT \(unsafeSQL: ChannelListing.columns), b.tier
            FROM channels c JOIN apps a ON a.id = c.app_id JOIN channel_bindings b ON b.channel_id = c.id
            WHERE b.game_id = \(gameID) AND a.bundle_id = \(bundleID) AND c.status = 'active'
              AND (\(environment?.rawValue as String?)::text IS NULL OR a.environment = \(environment?.rawValue as String?))
            ORDER BY a.environment, c.id
            """).map { SubscribableChannel(listing: try ChannelListing(row: $0), tier: try $0.decode("tier")) }
    }

    /// A channel an app may subscribe to for a game, and the tier it is bound as there.
    package struct SubscribableChannel: Sendable, Hashable {
        /// The channel and its app.
        package var listing: ChannelListing
        /// `standard` (every update) or `light` (every update, but priority 10 only for kick-off,
        /// goals and full time: for fans who turned frequent updates off).
        package var tier: String
    }

    // MARK: - Writing

    /// Records a channel APNs created and binds it to `gameID` for `tier` (`standard` or
    /// `light`), on `connection` (inside the caller's transaction).
    func insert(appID: Int64, apnsChannelID: String, policy: ChannelStoragePolicy, gameID: String, tier: String,
                on connection: PostgresConnection) async throws -> ChannelRecord {
        let rows = try await connection.query("""
            INSERT INTO channels (apns_channel_id, app_id, storage_policy)
            VALUES (\(apnsChannelID), \(appID), \(policy.rawValue))
            RETURNING \(unsafeSQL: ChannelRecord.columns)
            """)
        guard let row = rows.first else {
            throw PostgresError(.queryFailed, "inserting the channel returned no row")
        }
        let record = try ChannelRecord(row: row)
        try await connection.execute("INSERT INTO channel_bindings (channel_id, game_id, tier) VALUES (\(record.id), \(gameID), \(tier))")
        return record
    }

    /// Whether a channel row with this APNs id exists for app `appID` (any status).
    package func exists(appID: Int64, apnsChannelID: String) async throws -> Bool {
        try await !pool.query("""
            SELECT 1 FROM channels WHERE app_id = \(appID) AND apns_channel_id = \(apnsChannelID)
            """).isEmpty
    }

    /// Marks channel `id` deleted (APNs no longer has it) and drops its pending outbox row, in
    /// one transaction. A channel already deleted keeps its first deletion time.
    package func markDeleted(id: Int64) async throws {
        _ = try await markDeleted(id: id, optOutAppID: nil)
    }

    /// Marks channel `id` deleted and drops its pending outbox row; with `optOutAppID`, also
    /// records (in the same transaction) that every game bound to it opts out of that app's
    /// automatic channels. Returns the games that opted out, sorted.
    func markDeleted(id: Int64, optOutAppID: Int64?) async throws -> [String] {
        try await pool.withTransaction { connection in
            // `deleted_at` and `updated_at` are audit columns (no rule reads them): they keep the
            // database's clock.
            try await connection.execute("""
                UPDATE channels SET status = 'deleted', deleted_at = coalesce(deleted_at, now()), updated_at = now()
                WHERE id = \(id) AND status <> 'deleted'
                """)
            try await connection.execute("DELETE FROM outbox WHERE channel_id = \(id)")
            guard let optOutAppID else { return [] }
            return try await connection.query("""
                INSERT INTO channel_opt_outs (app_id, game_id)
                SELECT \(optOutAppID), b.game_id FROM channel_bindings b WHERE b.channel_id = \(id)
                ON CONFLICT (app_id, game_id) DO UPDATE SET created_at = channel_opt_outs.created_at
                RETURNING game_id
                """).map { try $0.decode("game_id", as: String.self) }.sorted()
        }
    }

    /// Whether game `gameID` opted out of app `appID`'s automatic channels, on `connection`.
    func isOptedOut(gameID: String, appID: Int64, on connection: PostgresConnection) async throws -> Bool {
        try await !connection.query(
            "SELECT 1 FROM channel_opt_outs WHERE app_id = \(appID) AND game_id = \(gameID)").isEmpty
    }

    /// Lifts game `gameID`'s opt-out of app `appID`'s automatic channels, on `connection`.
    func removeOptOut(gameID: String, appID: Int64, on connection: PostgresConnection) async throws {
        try await connection.execute("DELETE FROM channel_opt_outs WHERE app_id = \(appID) AND game_id = \(gameID)")
    }

    /// Games bound to channel `id`, sorted.
    func games(ofChannel id: Int64) async throws -> [String] {
        try await pool.query("SELECT game_id FROM channel_bindings WHERE channel_id = \(id) ORDER BY game_id")
            .map { try $0.decode("game_id", as: String.self) }
    }

    /// Marks live channels `ids` gone (APNs does not know them) and drops their pending outbox
    /// rows, on `connection`, except those holding alerts: a channel that replaces one of them
    /// for its game adopts those (``ChannelSeed``). Returns how many changed.
    @discardableResult
    func markGone(ids: [Int64], on connection: PostgresConnection) async throws -> Int {
        guard !ids.isEmpty else { return 0 }
        // `updated_at` is an audit column (no rule reads it): it keeps the database's clock.
        let changed = try await connection.execute("""
            UPDATE channels SET status = 'gone', updated_at = now()
            WHERE id = ANY(\(ids)) AND status IN ('active', 'retiring')
            """)
        try await connection.execute("DELETE FROM outbox WHERE channel_id = ANY(\(ids)) AND alerts = '[]'::jsonb")
        return changed
    }

    // MARK: - Orphans

    /// Records a channel created at APNs that could neither be registered nor deleted again.
    package func recordOrphan(appID: Int64, apnsChannelID: String, reason: String) async throws {
        try await pool.withConnection { try await recordOrphan(appID: appID, apnsChannelID: apnsChannelID, reason: reason, on: $0) }
    }

    func recordOrphan(appID: Int64, apnsChannelID: String, reason: String, on connection: PostgresConnection) async throws {
        try await connection.execute("""
            INSERT INTO channel_orphans (app_id, apns_channel_id, reason) VALUES (\(appID), \(apnsChannelID), \(reason))
            ON CONFLICT (app_id, apns_channel_id) DO UPDATE SET reason = EXCLUDED.reason
            """)
    }

    /// The recorded orphans of app `appID`, oldest first.
    package func orphans(appID: Int64) async throws -> [String] {
        try await pool.query("""
            SELECT apns_channel_id FROM channel_orphans WHERE app_id = \(appID) ORDER BY id
            """).map { try $0.decode("apns_channel_id", as: String.self) }
    }

    func orphans(appID: Int64, on connection: PostgresConnection) async throws -> [String] {
        try await connection.query("""
            SELECT apns_channel_id FROM channel_orphans WHERE app_id = \(appID) ORDER BY id
            """).map { try $0.decode("apns_channel_id", as: String.self) }
    }

    /// Forgets recorded orphans `ids` of app `appID` (deleted at APNs, or no longer listed).
    func removeOrphans(appID: Int64, apnsChannelIDs ids: [String], on connection: PostgresConnection) async throws {
        guard !ids.isEmpty else { return }
        try await connection.execute("""
            DELETE FROM channel_orphans WHERE app_id = \(appID) AND apns_channel_id = ANY(\(ids))
            """)
    }

    /// `ChannelRecord.columns` with a table alias.
    static func prefixed(_ alias: String) -> String {
        ChannelRecord.columns.split(separator: ",").map { "\(alias).\($0.trimmingCharacters(in: .whitespaces))" }.joined(separator: ", ")
    }
}
