import APNsCore
import Foundation
import Postgres
import ScorecastCore

extension AppStore {
    /// The apps with this bundle id (one per environment at most).
    package func find(bundleID: String) async throws -> [AppRecord] {
        try await pool.query("""
            SELECT \(unsafeSQL: AppRecord.columns) FROM apps WHERE bundle_id = \(bundleID) ORDER BY environment
            """).map(AppRecord.init(row:))
    }

    /// The app for this bundle id and environment, or nil.
    package func find(bundleID: String, environment: APNsEnvironment) async throws -> AppRecord? {
        try await pool.query("""
            SELECT \(unsafeSQL: AppRecord.columns) FROM apps WHERE bundle_id = \(bundleID) AND environment = \(environment.rawValue)
            """).first.map(AppRecord.init(row:))
    }

    /// The one app named by `bundleID` and, when given, `environment`: `notFound` when there is
    /// none, `invalidInput` when the bundle has both environments and none was chosen.
    package func resolve(bundleID: String, environment: APNsEnvironment?) async throws -> AppRecord {
        if let environment {
            guard let app = try await find(bundleID: bundleID, environment: environment) else {
                throw RegistryError(.notFound, "no app \(bundleID) in \(environment) (see `scorecast apps list`)")
            }
            return app
        }
        let apps = try await find(bundleID: bundleID)
        switch apps.count {
        case 0: throw RegistryError(.notFound, "no app \(bundleID) (see `scorecast apps list`)")
        case 1: return apps[0]
        default:
            throw RegistryError(.invalidInput, "\(bundleID) exists in sandbox and production: choose one with --environment")
        }
    }

    /// Adds an app; `alreadyExists` when the bundle id has an app in that environment.
    package func add(_ draft: AppDraft) async throws -> AppRecord {
        try draft.validate()
        let settings = draft.settings
        let rows: [PostgresRow]
        do {
            rows = try await pool.query("""
                INSERT INTO apps (bundle_id, environment, team_id, key_id, key_path, frequent_updates, budget_per_hour,
                                  date_encoding, dismissal_delay_seconds, alert_style, auto_channels, default_storage_policy)
                VALUES (\(draft.bundleID), \(draft.environment.rawValue), \(draft.teamID), \(draft.keyID), \(draft.keyPath),
                        \(settings.frequentUpdates), \(settings.budgetPerHour as Int?), \(RegistryNames.dateEncoding(settings.dateEncoding)),
                        \(settings.dismissalDelaySeconds), \(RegistryNames.alertStyle(settings.alertStyle)), \(settings.autoChannels),
                        \(settings.defaultStoragePolicy.rawValue))
                ON CONFLICT (bundle_id, environment) DO NOTHING
                RETURNING \(unsafeSQL: AppRecord.columns)
                """)
        } catch let error as PostgresError {
            throw RegistryError.database(error, while: "adding app \(draft.bundleID)")
        }
        guard let row = rows.first else {
            throw RegistryError(
                .alreadyExists,
                "app \(draft.bundleID) already exists in \(draft.environment) (change it with `scorecast apps update`)")
        }
        return try AppRecord(row: row)
    }

    /// Writes new credentials and settings for app `id`; returns the updated row.
    package func update(id: Int64, teamID: String, keyID: String, keyPath: String, settings: AppSettings) async throws -> AppRecord {
        try settings.validate()
        let rows: [PostgresRow]
        do {
            // `updated_at` is an audit column (no rule reads it): it keeps the database's clock.
            rows = try await pool.query("""
                UPDATE apps SET team_id = \(teamID), key_id = \(keyID), key_path = \(keyPath),
                    frequent_updates = \(settings.frequentUpdates), budget_per_hour = \(settings.budgetPerHour as Int?),
                    date_encoding = \(RegistryNames.dateEncoding(settings.dateEncoding)),
                    dismissal_delay_seconds = \(settings.dismissalDelaySeconds),
                    alert_style = \(RegistryNames.alertStyle(settings.alertStyle)), auto_channels = \(settings.autoChannels),
                    default_storage_policy = \(settings.defaultStoragePolicy.rawValue), updated_at = now()
                WHERE id = \(id)
                RETURNING \(unsafeSQL: AppRecord.columns)
                """)
        } catch let error as PostgresError {
            throw RegistryError.database(error, while: "updating app \(id)")
        }
        guard let row = rows.first else { throw RegistryError(.notFound, "app \(id) no longer exists") }
        return try AppRecord(row: row)
    }
}
