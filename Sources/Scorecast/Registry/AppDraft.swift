import APNsCore
import ScorecastCore

/// Everything `apps add` records for a new app, validated by `AppDraft.validate()` before any
/// write. The key is referenced by its absolute path; the key itself is never stored.
public struct AppDraft: Sendable, Hashable {
    /// The app's bundle id.
    public var bundleID: String
    /// The APNs environment.
    public var environment: APNsEnvironment
    /// The 10-character team id.
    public var teamID: String
    /// The 10-character key id.
    public var keyID: String
    /// The absolute path of the `.p8` key.
    public var keyPath: String
    /// The settings (all have defaults).
    public var settings: AppSettings

    /// Creates a draft with default settings unless given.
    public init(bundleID: String, environment: APNsEnvironment, teamID: String, keyID: String, keyPath: String,
                settings: AppSettings = AppSettings()) {
        self.bundleID = bundleID
        self.environment = environment
        self.teamID = teamID
        self.keyID = keyID
        self.keyPath = keyPath
        self.settings = settings
    }

    /// Checks the ids and ranges (not the key file: see `CredentialStore.checkKeyFile`).
    public func validate() throws(RegistryError) {
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
public struct AppSettings: Sendable, Hashable {
    /// Whether the app declares `NSSupportsLiveActivitiesFrequentUpdates` (larger budget profile).
    public var frequentUpdates: Bool = false
    /// Priority-10 sends per channel per hour; nil takes the profile default from configuration.
    public var budgetPerHour: Int?
    /// How `content-state` dates are encoded.
    public var dateEncoding: ContentDateEncoding = .referenceDate
    /// How long an ended activity stays on the Lock Screen, 0–14,400 seconds.
    public var dismissalDelaySeconds: Int = 1800
    /// Localized (loc-key) or plain alert text.
    public var alertStyle: AlertStyle = .localized
    /// Whether `channels ensure` creates a channel for every game automatically.
    public var autoChannels: Bool = true
    /// The storage policy of channels created for this app unless one is asked for.
    public var defaultStoragePolicy: ChannelStoragePolicy = .noMessageStored

    /// The schema's defaults.
    public init() {}

    /// The settings of an existing app.
    public init(_ app: AppRecord) {
        frequentUpdates = app.frequentUpdates
        budgetPerHour = app.budgetPerHour
        dateEncoding = app.dateEncoding
        dismissalDelaySeconds = app.dismissalDelaySeconds
        alertStyle = app.alertStyle
        autoChannels = app.autoChannels
        defaultStoragePolicy = app.defaultStoragePolicy
    }

    /// The accepted budget range.
    public static let budgetRange = 0...10_000
    /// The accepted dismissal delay range (Apple keeps an ended activity up to 4 hours).
    public static let dismissalRange = 0...14_400

    /// Checks the ranges the `apps` table enforces, naming the option at fault.
    public func validate() throws(RegistryError) {
        if let budgetPerHour, !Self.budgetRange.contains(budgetPerHour) {
            throw RegistryError(.invalidInput, "--budget must be from 0 to 10000 priority-10 sends per hour, got \(budgetPerHour)")
        }
        guard Self.dismissalRange.contains(dismissalDelaySeconds) else {
            throw RegistryError(.invalidInput, "--dismissal-delay must be from 0 to 14400 seconds, got \(dismissalDelaySeconds)")
        }
    }
}

/// What `apps update` changes: nil leaves a field as it is.
public struct AppChanges: Sendable, Hashable {
    /// A new team id.
    public var teamID: String?
    /// A new key id.
    public var keyID: String?
    /// A new absolute key path.
    public var keyPath: String?
    /// New settings (applied over the current ones by the caller).
    public var frequentUpdates: Bool?
    /// `.some(nil)` resets the budget to the profile default.
    public var budgetPerHour: Int??
    /// A new date encoding.
    public var dateEncoding: ContentDateEncoding?
    /// A new dismissal delay.
    public var dismissalDelaySeconds: Int?
    /// A new alert style.
    public var alertStyle: AlertStyle?
    /// Turns automatic channels on or off.
    public var autoChannels: Bool?
    /// A new default storage policy (existing channels keep theirs: APNs cannot change it).
    public var defaultStoragePolicy: ChannelStoragePolicy?

    /// No changes.
    public init() {}

    /// Whether nothing would change.
    public var isEmpty: Bool { self == AppChanges() }

    /// `current` with these changes applied.
    public func applied(to current: AppSettings) -> AppSettings {
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
