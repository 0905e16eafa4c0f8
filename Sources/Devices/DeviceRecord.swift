import APNsCore
import Foundation
import Postgres
import ScorecastCore

/// One row of `devices`: an app install on one phone, with the app's bundle id and environment.
package struct DeviceRecord: Sendable, Hashable {
    package var id: Int64
    package var appID: Int64
    package var bundleID: String
    package var environment: APNsEnvironment
    /// The app's own id for the install.
    package var installID: String
    /// The push-to-start token; `nil` when the app has none or APNs called it dead.
    package var pushToStartToken: String?
    package var osVersion: String
    /// iOS 18+: activities can listen to a broadcast channel.
    package var supportsChannels: Bool
    /// The user's Live Activities "frequent updates" setting.
    package var frequentUpdates: Bool
    package var locale: String
    /// Why the push-to-start token was dropped, if it was.
    package var tokenPrunedReason: String?
    package var lastSeenAt: Date
    package var createdAt: Date

    /// The columns `init(row:)` reads, for a query joining `devices d` and `apps a`.
    static let columns = """
        d.id, d.app_id, a.bundle_id, a.environment, d.install_id, d.push_to_start_token, d.os_version,
        d.supports_channels, d.frequent_updates, d.locale, d.token_pruned_reason, d.last_seen_at, d.created_at
        """

    init(row: PostgresRow) throws {
        id = try row.decode("id")
        appID = try row.decode("app_id")
        bundleID = try row.decode("bundle_id")
        let environmentName: String = try row.decode("environment")
        guard let environment = APNsEnvironment(rawValue: environmentName) else {
            throw PostgresError(.decodingFailed, "devices: unknown environment \(environmentName)")
        }
        self.environment = environment
        installID = try row.decode("install_id")
        pushToStartToken = try row.decode("push_to_start_token", as: String?.self)
        osVersion = try row.decode("os_version")
        supportsChannels = try row.decode("supports_channels")
        frequentUpdates = try row.decode("frequent_updates")
        locale = try row.decode("locale")
        tokenPrunedReason = try row.decode("token_pruned_reason", as: String?.self)
        lastSeenAt = try row.decode("last_seen_at")
        createdAt = try row.decode("created_at")
    }
}

/// What an app says when it registers or refreshes a device, checked (see `DeviceRequests`).
package struct DeviceRegistration: Sendable, Hashable {
    package var environment: APNsEnvironment
    /// Lowercase hex, or `nil` before iOS 17.2 or before the system handed one out.
    package var pushToStartToken: String?
    package var osVersion: OSVersion
    package var osVersionText: String
    package var frequentUpdates: Bool
    package var locale: String

    /// Creates a registration.
    package init(environment: APNsEnvironment, pushToStartToken: String?, osVersion: OSVersion, osVersionText: String,
                frequentUpdates: Bool, locale: String) {
        self.environment = environment
        self.pushToStartToken = pushToStartToken
        self.osVersion = osVersion
        self.osVersionText = osVersionText
        self.frequentUpdates = frequentUpdates
        self.locale = locale
    }
}

/// What a device can follow.
package enum FollowKind: String, Sendable, Hashable, CaseIterable {
    case team, league, game
}
