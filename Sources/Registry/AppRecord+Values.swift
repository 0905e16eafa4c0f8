import APNsCore
import Foundation
import JSON
import ScorecastCore

extension AppRecord {
    /// An app record built from values (tests, and code that has not read it from `apps`).
    package init(
        id: Int64, bundleID: String, environment: APNsEnvironment, teamID: String, keyID: String, keyPath: String,
        settings: AppSettings = AppSettings(), contentStateMapping: JSONValue = .object([:]), alertSound: String? = "default",
        pausedReason: String? = nil, createdAt: Date = Date()
    ) {
        self.id = id
        self.bundleID = bundleID
        self.environment = environment
        self.teamID = teamID
        self.keyID = keyID
        self.keyPath = keyPath
        self.frequentUpdates = settings.frequentUpdates
        self.budgetPerHour = settings.budgetPerHour
        self.dateEncoding = settings.dateEncoding
        self.contentStateMapping = contentStateMapping
        self.dismissalDelaySeconds = settings.dismissalDelaySeconds
        self.alertStyle = settings.alertStyle
        self.alertSound = alertSound
        self.autoChannels = settings.autoChannels
        self.defaultStoragePolicy = settings.defaultStoragePolicy
        self.pausedReason = pausedReason
        self.createdAt = createdAt
    }
}
