import APNsCore
import ScorecastCore

/// The names the registry uses in the database, on the command line and in JSON for the
/// core's enumerations, in one place so every surface spells them the same way.
package enum RegistryNames {
    /// `no-store` / `most-recent`: a channel's storage policy.
    package static func storagePolicy(_ policy: ChannelStoragePolicy) -> String {
        switch policy {
        case .noMessageStored: "no-store"
        case .mostRecentMessageStored: "most-recent"
        }
    }

    /// The storage policy named `name` (`no-store` or `most-recent`), or nil.
    package static func storagePolicy(named name: String) -> ChannelStoragePolicy? {
        switch name {
        case "no-store": .noMessageStored
        case "most-recent": .mostRecentMessageStored
        default: nil
        }
    }

    /// The accepted storage policy names.
    package static let storagePolicies = ["no-store", "most-recent"]

    /// `localized` / `plain`: an app's alert style (the `apps.alert_style` values).
    package static func alertStyle(_ style: AlertStyle) -> String {
        switch style {
        case .localized: "localized"
        case .plainText: "plain"
        }
    }

    /// The alert style named `name`, or nil.
    package static func alertStyle(named name: String) -> AlertStyle? {
        switch name {
        case "localized": .localized
        case "plain": .plainText
        default: nil
        }
    }

    /// The accepted alert style names.
    package static let alertStyles = ["localized", "plain"]

    /// The accepted date encoding names (`reference-date`, `unix-seconds`, `iso8601`).
    package static let dateEncodings = ["reference-date", "unix-seconds", "iso8601"]

    /// The name of a date encoding (`apps.date_encoding`).
    package static func dateEncoding(_ encoding: ContentDateEncoding) -> String {
        switch encoding {
        case .referenceDate: "reference-date"
        case .unixSeconds: "unix-seconds"
        case .iso8601: "iso8601"
        }
    }

    /// The date encoding named `name`, or nil.
    package static func dateEncoding(named name: String) -> ContentDateEncoding? {
        AppRecord.dateEncodings[name]
    }

    /// The accepted environment names (`sandbox`, `production`).
    package static let environments = APNsEnvironment.allCases.map(\.rawValue)

    /// The game statuses the `games.status` column holds.
    package static let gameStatuses = ["scheduled", "live", "suspended", "final"]
}
