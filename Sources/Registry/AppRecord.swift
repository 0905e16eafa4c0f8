import APNsCore
import Foundation
import JSON
import Postgres
import ScorecastCore
import ServiceBase

/// One row of `apps`: an iOS app in one APNs environment, its credentials' location and its
/// delivery and rendering settings. Shared by the registry, ingest and the workers.
package struct AppRecord: Sendable, Hashable {
    package var id: Int64
    package var bundleID: String
    package var environment: APNsEnvironment
    package var teamID: String
    package var keyID: String
    /// Path of the `.p8` provider key; the key itself is never stored.
    package var keyPath: String
    package var frequentUpdates: Bool
    /// Priority-10 sends per channel per hour; `nil` takes the profile default from configuration.
    package var budgetPerHour: Int?
    package var dateEncoding: ContentDateEncoding
    package var contentStateMapping: JSONValue
    package var dismissalDelaySeconds: Int
    package var alertStyle: AlertStyle
    package var alertSound: String?
    package var autoChannels: Bool
    package var defaultStoragePolicy: ChannelStoragePolicy
    /// Set while APNs refuses this app's credentials: its sends are paused.
    package var pausedReason: String?
    package var createdAt: Date

    /// The columns `init(row:)` reads, for `SELECT \(unsafeSQL: AppRecord.columns) FROM apps`.
    package static let columns = """
        id, bundle_id, environment, team_id, key_id, key_path, frequent_updates, budget_per_hour,
        date_encoding, content_state_mapping, dismissal_delay_seconds, alert_style, alert_sound,
        auto_channels, default_storage_policy, paused_reason, created_at
        """

    /// Decodes a row selected with `columns`.
    package init(row: PostgresRow) throws {
        id = try row.decode("id")
        bundleID = try row.decode("bundle_id")
        let environmentName: String = try row.decode("environment")
        guard let environment = APNsEnvironment(rawValue: environmentName) else {
            throw PostgresError(.decodingFailed, "apps.environment holds an unknown value", column: "environment")
        }
        self.environment = environment
        teamID = try row.decode("team_id")
        keyID = try row.decode("key_id")
        keyPath = try row.decode("key_path")
        frequentUpdates = try row.decode("frequent_updates")
        budgetPerHour = try row.decode("budget_per_hour", as: Int?.self)
        let encodingName: String = try row.decode("date_encoding")
        guard let encoding = AppRecord.dateEncodings[encodingName] else {
            throw PostgresError(.decodingFailed, "apps.date_encoding holds an unknown value", column: "date_encoding")
        }
        dateEncoding = encoding
        let mappingBytes = try row.decode("content_state_mapping", as: PostgresJSON.self).bytes
        contentStateMapping = try JSONParser().parse(mappingBytes)
        dismissalDelaySeconds = try row.decode("dismissal_delay_seconds")
        let styleName: String = try row.decode("alert_style")
        alertStyle = styleName == "plain" ? .plainText : .localized
        alertSound = try row.decode("alert_sound", as: String?.self)
        autoChannels = try row.decode("auto_channels")
        let policy: Int = try row.decode("default_storage_policy")
        defaultStoragePolicy = policy == 1 ? .mostRecentMessageStored : .noMessageStored
        pausedReason = try row.decode("paused_reason", as: String?.self)
        createdAt = try row.decode("created_at")
    }

    /// The names used in the database and on the command line for each date encoding.
    package static let dateEncodings: [String: ContentDateEncoding] = [
        "reference-date": .referenceDate, "unix-seconds": .unixSeconds, "iso8601": .iso8601,
    ]

    /// The database/CLI name of this app's date encoding.
    package var dateEncodingName: String {
        AppRecord.dateEncodings.first { $0.value == dateEncoding }?.key ?? "reference-date"
    }

    /// Priority-10 budget per channel per hour under `configuration`'s profile defaults.
    package func budget(_ configuration: Configuration) -> Int {
        configuration.budgetProfiles.profile(appBudget: budgetPerHour, frequentUpdates: frequentUpdates).immediatePerHour
    }
}

/// Reads apps; the registry helper owns writing them.
package struct AppStore: Sendable {
    let pool: PostgresPool

    /// Creates a store on `pool`.
    package init(pool: PostgresPool) { self.pool = pool }

    /// Every app, by bundle id then environment.
    package func all() async throws -> [AppRecord] {
        try await pool.query("SELECT \(unsafeSQL: AppRecord.columns) FROM apps ORDER BY bundle_id, environment").map(AppRecord.init(row:))
    }

    /// The app with this id, or nil.
    package func find(id: Int64) async throws -> AppRecord? {
        try await pool.query("SELECT \(unsafeSQL: AppRecord.columns) FROM apps WHERE id = \(id)").first.map(AppRecord.init(row:))
    }
}
