import APNsCore
import ScorecastCore

/// Everything `apps add` records for a new app, validated by `AppDraft.validate()` before any
/// write. The key is referenced by its absolute path; the key itself is never stored.
package struct AppDraft: Sendable, Hashable {
    /// The app's bundle id.
    package var bundleID: String
    /// The APNs environment.
    package var environment: APNsEnvironment
    /// The 10-character team id.
    package var teamID: String
    /// The 10-character key id.
    package var keyID: String
    /// The absolute path of the `.p8` key.
    package var keyPath: String
    /// The settings (all have defaults).
    package var settings: AppSettings

    /// Creates a draft with default settings unless given.
    package init(bundleID: String, environment: APNsEnvironment, teamID: String, keyID: String, keyPath: String,
                settings: AppSettings = AppSettings()) {
        self.bundleID = bundleID
        self.environment = environment
        self.teamID = teamID
        self.keyID = keyID
        self.keyPath = keyPath
        self.settings = settings
    }

    /// Checks the ids and ranges (not the key file: see `CredentialStore.checkKeyFile`).
    package func validate() throws(RegistryError) {
        try AppValidation.checkBundleID(bundleID)
        try AppValidation.checkAppleID(teamID, option: "--team-id")
        try AppValidation.checkAppleID(keyID, option: "--key-id")
        guard keyPath.hasPrefix("/") else {
            throw RegistryError(.invalidInput, "the key path must be absolute, got \"\(keyPath)\"")
        }
        try settings.validate()
    }
}

/// An app's delivery and rendering settings (the `apps` columns beyond its identity).
package struct AppSettings: Sendable, Hashable {
    /// Whether the app declares `NSSupportsLiveActivitiesFrequentUpdates` (larger budget profile).
    package var frequentUpdates: Bool = false
    /// Priority-10 sends per channel per hour; nil takes the profile default from configuration.
    package var budgetPerHour: Int?
    /// How `content-state` dates are encoded.
    package var dateEncoding: ContentDateEncoding = .referenceDate
    /// How long an ended activity stays on the Lock Screen, 0–14,400 seconds.
    package var dismissalDelaySeconds: Int = 1800
    /// Localized (loc-key) or plain alert text.
    package var alertStyle: AlertStyle = .localized
    /// Whether `channels ensure` creates a channel for every game automatically.
    package var autoChannels: Bool = true
    /// The storage policy of channels created for this app unless one is asked for.
    package var defaultStoragePolicy: ChannelStoragePolicy = .noMessageStored

    /// The schema's defaults.
    package init() {}

    /// The settings of an existing app.
    package init(_ app: AppRecord) {
        frequentUpdates = app.frequentUpdates
        budgetPerHour = app.budgetPerHour
        dateEncoding = app.dateEncoding
        dismissalDelaySeconds = app.dismissalDelaySeconds
        alertStyle = app.alertStyle
        autoChannels = app.autoChannels
        defaultStoragePolicy = app.defaultStoragePolicy
    }

    /// The accepted budget range.
    package static let budgetRange = 0...10_000
    /// The accepted dismissal delay range (Apple keeps an ended activity up to 4 hours).
    package static let dismissalRange = 0...14_400

    /// Checks the ranges the `apps` table enforces, naming the option at fault.
    package func validate() throws(RegistryError) {
        if let budgetPerHour, !Self.budgetRange.contains(budgetPerHour) {
            throw RegistryError(.invalidInput, "--budget must be from 0 to 10000 priority-10 sends per hour, got \(budgetPerHour)")
        }
        guard Self.dismissalRange.contains(dismissalDelaySeconds) else {
            throw RegistryError(.invalidInput, "--dismissal-delay must be from 0 to 14400 seconds, got \(dismissalDelaySeconds)")
        }
    }
}

/// What `apps update` changes: nil leaves a field as it is.
package struct AppChanges: Sendable, Hashable {
    /// A new team id.
    package var teamID: String?
    /// A new key id.
    package var keyID: String?
    /// A new absolute key path.
    package var keyPath: String?
    /// New settings (applied over the current ones by the caller).
    package var frequentUpdates: Bool?
    /// `.some(nil)` resets the budget to the profile default.
    package var budgetPerHour: Int??
    /// A new date encoding.
    package var dateEncoding: ContentDateEncoding?
    /// A new dismissal delay.
    package var dismissalDelaySeconds: Int?
    /// A new alert style.
    package var alertStyle: AlertStyle?
    /// Turns automatic channels on or off.
    package var autoChannels: Bool?
    /// A new default storage policy (existing channels keep theirs: APNs cannot change it).
    package var defaultStoragePolicy: ChannelStoragePolicy?

    /// No changes.
    package init() {}

    /// Whether nothing would change.
    package var isEmpty: Bool { self == AppChanges() }

    /// `current` with these changes applied.
    package func applied(to current: AppSettings) -> AppSettings {
        var settings = current
        if let frequentUpdates { settings.frequentUpdates = frequentUpdates }
        if let budgetPerHour { settings.budgetPerHour = budgetPerHour }
        if let dateEncoding { settings.dateEncoding = dateEncoding }
        if let dismissalDelaySeconds { settings.dismissalDelaySeconds = dismissalDelaySeconds }
        if let alertStyle { settings.alertStyle = alertStyle }
        if let autoChannels { settings.autoChannels = autoChannels }
        if let defaultStoragePolicy { settings.defaultStoragePolicy = defaultStoragePolicy }
        return settings
    }
}
