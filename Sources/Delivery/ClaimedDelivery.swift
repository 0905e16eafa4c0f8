import APNsCore
import DeliveryEngine
import Foundation
import JSON
import Postgres
import Registry
import ScorecastCore

/// One outbox row a worker holds under lease, with what sending it needs from `channels`,
/// `apps` and the channel's budget ledger (read in the same statement as the claim, so a send
/// never needs another round trip).
package struct ClaimedDelivery: Sendable, Hashable {
    /// `outbox.channel_id` = `channels.id`.
    package var channelID: Int64
    /// `outbox.version` when claimed: the completion is fenced on it.
    package var version: Int64
    /// The rendered body, sent byte for byte.
    package var payload: [UInt8]
    /// The payload's `aps.timestamp` (UNIX seconds).
    package var payloadTimestamp: Int64
    /// The strongest priority any coalesced event asked for.
    package var requestedPriority: BroadcastPriority
    /// Whether an event in the row wanted an alert.
    package var alerting: Bool
    /// The oldest alert the channel still owes: this send carries it beside the newest state.
    package var headAlert: QueuedAlert?
    /// Alerts queued on the row, the head included.
    package var queuedAlerts: Int
    /// The events this row carries.
    package var eventIDs: [Int64]
    /// When the oldest event folded into the row was ingested.
    package var firstIngestedAt: Date
    /// How many pending updates a newer one replaced in this row.
    package var coalesced: Int
    /// Attempts made so far (the next one is `attempts + 1`).
    package var attempts: Int
    /// The lease owner written by the claim.
    package var leaseOwner: String
    /// When the claim took the row (the database's clock): every event folded into the row
    /// after this came in during the send.
    package var claimedAt: Date
    /// APNs' channel id, byte for byte.
    package var apnsChannelID: String
    /// The channel's storage policy (decides `apns-expiration`).
    package var storagePolicy: ChannelStoragePolicy
    /// The newest payload timestamp already sent to the channel.
    package var lastTimestamp: Int64
    /// What the channel's last accepted send showed (`channels.last_shown`), if known.
    package var lastShown: ShownState?
    /// The app the channel belongs to.
    package var app: DeliveryApp
    /// The channel's budget as its ledger stood at the claim (``BudgetLedger``).
    package var budget: ChannelBudget
    /// Whether the head alert is the final whistle's (an event of kind `final`): the only send
    /// that may spend the budget's final reserve.
    package var headAlertIsFinal: Bool

    /// The row as the claim read it, for its settlement; `nil` when a claim is built by hand.
    package var row: OutboxSettlement.Row?

    /// The number of the attempt a send of this row makes (1-based).
    package var attempt: Int { attempts + 1 }

    /// Creates a claimed delivery (the store decodes them; tests may build their own).
    package init(
        channelID: Int64, version: Int64, payload: [UInt8], payloadTimestamp: Int64, requestedPriority: BroadcastPriority,
        alerting: Bool, headAlert: QueuedAlert? = nil, queuedAlerts: Int = 0, eventIDs: [Int64], firstIngestedAt: Date,
        coalesced: Int, attempts: Int, leaseOwner: String, claimedAt: Date, apnsChannelID: String,
        storagePolicy: ChannelStoragePolicy, lastTimestamp: Int64, app: DeliveryApp, budget: ChannelBudget = ChannelBudget(),
        headAlertIsFinal: Bool = false, lastShown: ShownState? = nil
    ) {
        self.lastShown = lastShown
        self.headAlertIsFinal = headAlertIsFinal
        self.channelID = channelID
        self.version = version
        self.payload = payload
        self.payloadTimestamp = payloadTimestamp
        self.requestedPriority = requestedPriority
        self.alerting = alerting
        self.headAlert = headAlert
        self.queuedAlerts = headAlert == nil ? 0 : max(1, queuedAlerts)
        self.eventIDs = eventIDs
        self.firstIngestedAt = firstIngestedAt
        self.coalesced = coalesced
        self.attempts = attempts
        self.leaseOwner = leaseOwner
        self.claimedAt = claimedAt
        self.apnsChannelID = apnsChannelID
        self.storagePolicy = storagePolicy
        self.lastTimestamp = lastTimestamp
        self.app = app
        self.budget = budget
    }

    /// Decodes a row of the claim statement.
    init(row: PostgresRow) throws {
        channelID = try row.decode("channel_id")
        version = try row.decode("version")
        payload = try row.decode("payload")
        payloadTimestamp = try row.decode("payload_timestamp")
        let stored = try OutboxSettlement.Row(stored: row)
        requestedPriority = stored.priority
        alerting = stored.alerting
        headAlert = stored.alerts.first
        queuedAlerts = stored.alerts.count
        eventIDs = stored.eventIDs
        firstIngestedAt = stored.firstIngestedAt
        coalesced = stored.coalesced
        attempts = stored.attempts
        self.row = stored
        leaseOwner = try row.decode("lease_owner")
        claimedAt = try row.decode("claimed_at")
        apnsChannelID = try row.decode("apns_channel_id")
        let policy: Int = try row.decode("storage_policy")
        guard let storagePolicy = ChannelStoragePolicy(rawValue: policy) else {
            throw PostgresError(.decodingFailed, "channels.storage_policy holds \(policy), not 0 or 1", column: "storage_policy")
        }
        self.storagePolicy = storagePolicy
        lastTimestamp = try row.decode("last_timestamp")
        lastShown = try row.decode("last_shown", as: Int64?.self).map(ShownState.init(fingerprint:))
        app = try DeliveryApp(row: row)
        budget = try BudgetLedger.budget(row)
        headAlertIsFinal = try row.decode("head_alert_final")
    }

    /// `outbox.alerts`, oldest first, from a row that selected it.
    static func alerts(_ row: PostgresRow) throws -> [QueuedAlert] {
        let stored: PostgresJSON = try row.decode("alerts")
        guard let elements = try JSONParser().parse(stored.bytes).arrayValue else {
            throw PostgresError(.decodingFailed, "outbox.alerts is not an array", column: "alerts")
        }
        return try elements.map { try QueuedAlert(jsonValue: $0) }
    }
}

/// The columns of `apps` a send needs: where its credentials are and its budget profile.
///
/// A narrow projection of ``AppRecord`` on purpose: every claimed row carries one, and the
/// claim should not fetch and parse each app's content-state mapping hundreds of times a second.
package struct DeliveryApp: Sendable, Hashable {
    /// `apps.id`.
    package var id: Int64
    /// The plain bundle id (the broadcast path).
    package var bundleID: String
    /// Sandbox or production.
    package var environment: APNsEnvironment
    /// The Apple Developer team id.
    package var teamID: String
    /// The APNs auth key id.
    package var keyID: String
    /// Path of the `.p8` key file.
    package var keyPath: String
    /// Whether the app declares frequent updates (the larger budget profile).
    package var frequentUpdates: Bool
    /// The app's own priority-10 budget per channel per hour; `nil` takes the profile default.
    package var budgetPerHour: Int?
    /// How long an ended activity stays on the Lock Screen after its `end` is sent, in seconds.
    package var dismissalDelaySeconds: Int

    /// Creates the app's delivery settings.
    package init(
        id: Int64, bundleID: String, environment: APNsEnvironment, teamID: String, keyID: String, keyPath: String,
        frequentUpdates: Bool, budgetPerHour: Int?, dismissalDelaySeconds: Int = AppSettings().dismissalDelaySeconds
    ) {
        self.dismissalDelaySeconds = dismissalDelaySeconds
        self.id = id
        self.bundleID = bundleID
        self.environment = environment
        self.teamID = teamID
        self.keyID = keyID
        self.keyPath = keyPath
        self.frequentUpdates = frequentUpdates
        self.budgetPerHour = budgetPerHour
    }

    init(row: PostgresRow) throws {
        id = try row.decode("app_id")
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
        dismissalDelaySeconds = try row.decode("dismissal_delay_seconds")
    }
}
