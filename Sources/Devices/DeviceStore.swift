import APNsCore
import Clocks
import Foundation
import Postgres
import ScorecastCore

/// Devices, what they follow, and their activities' push tokens, for the app API.
package struct DeviceStore: Sendable {
    /// The most follows one device may hold.
    package static let followLimit = 200

    /// Why a write was refused (the app API turns each into a problem naming the field).
    package enum Refusal: Error, Sendable, Hashable {
        /// No app with this bundle id in this environment is registered.
        case unknownApp(bundleID: String, environment: APNsEnvironment)
        /// No device with this install id for the app (register it first).
        case unknownDevice(installID: String)
        /// No such game.
        case unknownGame(String)
        /// The device follows `followLimit` things already.
        case tooManyFollows(limit: Int)
    }

    let pool: PostgresPool
    /// The time a device is last seen at (device expiry reads it on the same clock).
    let clock: any ServiceClock

    /// Creates a store on `pool`, going by `clock`.
    package init(pool: PostgresPool, clock: any ServiceClock = SystemServiceClock()) {
        self.pool = pool
        self.clock = clock
    }

    /// Registers the install or refreshes it (token, OS, settings, last seen). A new token clears
    /// the record of an earlier one being pruned. Returns the device and whether it is new.
    /// `updated_at` is an audit column (no rule reads it): it keeps the database's clock.
    package func register(bundleID: String, installID: String, _ registration: DeviceRegistration) async throws -> (DeviceRecord, created: Bool) {
        let now = clock.now()
        let rows = try await pool.query("""
            WITH app AS (SELECT id FROM apps WHERE bundle_id = \(bundleID) AND environment = \(registration.environment.rawValue)),
            upserted AS (
                INSERT INTO devices AS d (app_id, install_id, push_to_start_token, os_version, supports_channels, frequent_updates, locale,
                                          last_seen_at)
                SELECT app.id, \(installID), \(registration.pushToStartToken), \(registration.osVersionText),
                       \(registration.osVersion.supportsChannels), \(registration.frequentUpdates), \(registration.locale), \(now)
                FROM app
                ON CONFLICT (app_id, install_id) DO UPDATE SET
                    push_to_start_token = EXCLUDED.push_to_start_token,
                    os_version = EXCLUDED.os_version,
                    supports_channels = EXCLUDED.supports_channels,
                    frequent_updates = EXCLUDED.frequent_updates,
                    locale = EXCLUDED.locale,
                    token_pruned_reason = CASE WHEN EXCLUDED.push_to_start_token IS DISTINCT FROM d.push_to_start_token
                                               THEN NULL ELSE d.token_pruned_reason END,
                    token_pruned_at = CASE WHEN EXCLUDED.push_to_start_token IS DISTINCT FROM d.push_to_start_token
                                           THEN NULL ELSE d.token_pruned_at END,
                    last_seen_at = \(now), updated_at = now()
                RETURNING d.*, (xmax = 0) AS created
            )
            SELECT \(unsafeSQL: DeviceRecord.columns), d.created FROM upserted d JOIN apps a ON a.id = d.app_id
            """)
        guard let row = rows.first else { throw Refusal.unknownApp(bundleID: bundleID, environment: registration.environment) }
        return (try DeviceRecord(row: row), try row.decode("created"))
    }

    /// The install of `bundleID` with this id (the most recently seen, should the app have
    /// registered it in both environments).
    package func find(bundleID: String, installID: String) async throws -> DeviceRecord? {
        try await pool.query("""
            SELECT \(unsafeSQL: DeviceRecord.columns) FROM devices d JOIN apps a ON a.id = d.app_id
            WHERE a.bundle_id = \(bundleID) AND d.install_id = \(installID)
            ORDER BY d.last_seen_at DESC LIMIT 1
            """).first.map(DeviceRecord.init(row:))
    }

    /// The device, or `unknownDevice`; marks it seen (at most once a minute: a write per request
    /// would be wasted on a busy device).
    package func require(bundleID: String, installID: String) async throws -> DeviceRecord {
        guard let device = try await find(bundleID: bundleID, installID: installID) else { throw Refusal.unknownDevice(installID: installID) }
        let now = clock.now()
        try await pool.execute("""
            UPDATE devices SET last_seen_at = \(now)
            WHERE id = \(device.id) AND last_seen_at < \(now.addingTimeInterval(-60))
            """)
        return device
    }

    /// Follows `value` (idempotent). Returns whether it is new.
    @discardableResult
    package func follow(deviceID: Int64, kind: FollowKind, value: String) async throws -> Bool {
        try await pool.withTransaction { connection in
            // One device's follows are written one at a time, so the limit holds under races.
            _ = try await connection.query("SELECT id FROM devices WHERE id = \(deviceID) FOR UPDATE")
            let count: Int64 = try await connection.query("SELECT count(*) AS n FROM follows WHERE device_id = \(deviceID)")
                .first?.decode("n") ?? 0
            let inserted = try await connection.execute("""
                INSERT INTO follows (device_id, kind, value)
                SELECT \(deviceID), \(kind.rawValue), \(value)
                WHERE \(count) < \(Int64(Self.followLimit))
                ON CONFLICT DO NOTHING
                """)
            if inserted == 0 {
                let exists = try await connection.query("""
                    SELECT 1 FROM follows WHERE device_id = \(deviceID) AND kind = \(kind.rawValue) AND value = \(value)
                    """)
                if exists.isEmpty { throw Refusal.tooManyFollows(limit: Self.followLimit) }
            }
            return inserted > 0
        }
    }

    /// Stops following `value`. Returns whether it was followed.
    @discardableResult
    package func unfollow(deviceID: Int64, kind: FollowKind, value: String) async throws -> Bool {
        try await pool.execute("""
            DELETE FROM follows WHERE device_id = \(deviceID) AND kind = \(kind.rawValue) AND value = \(value)
            """) > 0
    }

    /// The device's follows, by kind then value.
    package func follows(deviceID: Int64) async throws -> [(kind: FollowKind, value: String)] {
        try await pool.query("SELECT kind, value FROM follows WHERE device_id = \(deviceID) ORDER BY kind, value").compactMap { row in
            guard let kind = FollowKind(rawValue: try row.decode("kind")) else { return nil }
            return (kind, try row.decode("value"))
        }
    }

    /// Registers the push token of the device's activity for `gameID`, replacing the activity's
    /// previous token (rotation). Returns the token's id and whether a different token was replaced.
    /// `updated_at` is an audit column (no rule reads it): it keeps the database's clock.
    package func registerActivityToken(deviceID: Int64, gameID: String, token: String) async throws -> (id: Int64, replaced: Bool) {
        do {
            let rows = try await pool.query("""
                WITH previous AS (SELECT token FROM activity_tokens WHERE device_id = \(deviceID) AND game_id = \(gameID))
                INSERT INTO activity_tokens AS t (device_id, game_id, token)
                VALUES (\(deviceID), \(gameID), \(token))
                ON CONFLICT (device_id, game_id) DO UPDATE SET
                    token = EXCLUDED.token, status = 'active', pruned_reason = NULL, ended_at = NULL, updated_at = now()
                RETURNING t.id, COALESCE((SELECT token FROM previous) IS DISTINCT FROM t.token
                                         AND (SELECT token FROM previous) IS NOT NULL, false) AS replaced
                """)
            guard let row = rows.first else { throw PostgresError(.queryFailed, "INSERT … RETURNING returned no row") }
            return (try row.decode("id"), try row.decode("replaced"))
        } catch let error as PostgresError where error.sqlState == PostgresError.SQLState.foreignKeyViolation {
            throw Refusal.unknownGame(gameID)
        }
    }

    /// Records that the device's activity for `gameID` ended: its token gets nothing more.
    /// Returns whether there was an activity token. `updated_at` is an audit column (no rule
    /// reads it): it keeps the database's clock.
    @discardableResult
    package func endActivity(deviceID: Int64, gameID: String) async throws -> Bool {
        try await pool.execute("""
            UPDATE activity_tokens SET status = 'ended', ended_at = \(clock.now()), updated_at = now()
            WHERE device_id = \(deviceID) AND game_id = \(gameID) AND status <> 'ended'
            """) > 0
    }
}
