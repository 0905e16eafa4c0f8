import APNsCore
import DeliveryEngine
import Foundation
import ScorecastCore

/// Everything a worker writes after one send, fenced on its lease and version (``OutboxStore/complete(_:owner:routineInterval:at:)``).
///
/// Built by ``CompletionPlanner`` from the send's outcome; the store only carries it out.
package struct DeliveryCompletion: Sendable, Hashable {
    /// The channel (outbox row) completed.
    package var channelID: Int64
    /// The version the worker claimed (and sent).
    package var claimedVersion: Int64
    /// The channel's app.
    package var appID: Int64
    /// What becomes of the row.
    package var action: OutboxSettlement.Action
    /// The `deliveries` row to append; `nil` when nothing was attempted.
    package var delivery: DeliveryRecord?
    /// The entry to append to the channel's budget ledger (``ChannelBudget``); `nil` when the
    /// send spent and cost nothing.
    package var budgetEntry: ChannelBudget.Entry?
    /// The payload timestamp APNs accepted (raises `channels.last_timestamp`); `nil` unless sent.
    package var sentTimestamp: Int64?
    /// What the accepted send showed (becomes `channels.last_shown`); `nil` unless sent, or unknown.
    package var sentShown: ShownState?
    /// The body APNs accepted (becomes `channels.shown_payload`, what the channel's phones show
    /// now); `nil` unless sent.
    package var acceptedBody: [UInt8]?
    /// The alert ``acceptedBody`` carried, alone (`{"aps":{"alert":…}}`): it becomes
    /// `channels.alert_payload`, the alert the channel's phones showed last; `nil` when the body
    /// carried none.
    package var acceptedAlert: [UInt8]?
    /// Whether the row was finished without a send because it would have repeated the
    /// channel's last accepted one (counted, nothing recorded in `deliveries`).
    package var skippedRepeat = false
    /// The events the claimed row carried (dropped from a row superseded during the send).
    package var claimedEventIDs: [Int64]
    /// The claimed row's coalesced count (subtracted from a row superseded during the send).
    package var claimedCoalesced: Int
    /// When the row was claimed; `nil` when unknown.
    package var claimedAt: Date?
    /// The key of the queued alert this send settled (accepted, or refused for good): the
    /// completion removes it from the row's queue. `nil` when the send carried none or will be retried.
    package var sentAlertKey: String?
    /// Whether the settled alert was dropped rather than sent (counted as dropped by policy).
    package var alertDropped = false
    /// The row as the claim read it (what the completion settles first, fenced on its version);
    /// `nil` when not known, and then the store reads it.
    package var claimedRow: OutboxSettlement.Row?
    /// Set when an operator must hear about this outcome (a configuration error, retries
    /// exhausted, a channel gone): what to say. Expected failures are only counted.
    package var alert: String?

    /// Creates a completion.
    package init(
        channelID: Int64, claimedVersion: Int64, appID: Int64, action: OutboxSettlement.Action, delivery: DeliveryRecord?,
        budgetEntry: ChannelBudget.Entry? = nil, sentTimestamp: Int64?, alert: String? = nil, claimedEventIDs: [Int64] = [],
        claimedCoalesced: Int = 0, claimedAt: Date? = nil
    ) {
        self.channelID = channelID
        self.claimedVersion = claimedVersion
        self.appID = appID
        self.action = action
        self.delivery = delivery
        self.budgetEntry = budgetEntry
        self.sentTimestamp = sentTimestamp
        self.alert = alert
        self.claimedEventIDs = claimedEventIDs
        self.claimedCoalesced = claimedCoalesced
        self.claimedAt = claimedAt
    }

    /// A completion of `claim` with nothing decided yet (``OutboxSettlement/Action/release``, no delivery).
    package init(claim: ClaimedDelivery) {
        self.init(
            channelID: claim.channelID, claimedVersion: claim.version, appID: claim.app.id, action: .release,
            delivery: nil, sentTimestamp: nil, claimedEventIDs: claim.eventIDs,
            claimedCoalesced: claim.coalesced, claimedAt: claim.claimedAt)
        claimedRow = claim.row
    }

    /// What the row's settlement needs of this completion (``OutboxSettlement``).
    package var completed: OutboxSettlement.Completed {
        OutboxSettlement.Completed(
            action: action, claimedVersion: claimedVersion, claimedEventIDs: claimedEventIDs,
            claimedCoalesced: claimedCoalesced, claimedAt: claimedAt, sentAlertKey: sentAlertKey)
    }

    /// A completion that only gives the row back (nothing was sent).
    package static func release(_ claim: ClaimedDelivery) -> DeliveryCompletion {
        DeliveryCompletion(claim: claim)
    }
}

/// One row of `deliveries`: an attempt and APNs' answer.
package struct DeliveryRecord: Sendable, Hashable {
    /// The events the payload carried.
    package var eventIDs: [Int64]
    /// The outbox version sent.
    package var outboxVersion: Int64
    /// The priority the row asked for.
    package var requestedPriority: BroadcastPriority
    /// The priority sent (`apns-priority`).
    package var priority: BroadcastPriority
    /// Whether a wanted 10 went out as 5 because the budget was spent.
    package var downgraded: Bool
    /// Updates replaced by newer ones in the row.
    package var coalesced: Int
    /// The 1-based attempt number.
    package var attempt: Int
    /// What came of it.
    package var outcome: DeliveryOutcome
    /// The HTTP status, when APNs answered.
    package var statusCode: Int?
    /// The APNs reason, or a description of the transport failure.
    package var reason: String?
    /// `apns-request-id`.
    package var apnsRequestID: String?
    /// `apns-unique-id`.
    package var apnsUniqueID: String?
    /// APNs round trip in milliseconds, when answered.
    package var apnsLatencyMilliseconds: Double?
    /// From the first ingest of the row's oldest event until APNs answered, in milliseconds.
    package var ingestToSendMilliseconds: Double?
    /// From the same first ingest until a worker claimed the row and planned its send: the part
    /// of ``ingestToSendMilliseconds`` spent waiting for a worker rather than sending.
    package var ingestToClaimMilliseconds: Double?

    /// Creates a record.
    package init(
        eventIDs: [Int64], outboxVersion: Int64, requestedPriority: BroadcastPriority, priority: BroadcastPriority,
        downgraded: Bool, coalesced: Int, attempt: Int, outcome: DeliveryOutcome, statusCode: Int?, reason: String?,
        apnsRequestID: String?, apnsUniqueID: String?, apnsLatencyMilliseconds: Double?, ingestToSendMilliseconds: Double?,
        ingestToClaimMilliseconds: Double? = nil
    ) {
        self.eventIDs = eventIDs
        self.outboxVersion = outboxVersion
        self.requestedPriority = requestedPriority
        self.priority = priority
        self.downgraded = downgraded
        self.coalesced = coalesced
        self.attempt = attempt
        self.outcome = outcome
        self.statusCode = statusCode
        self.reason = reason
        self.apnsRequestID = apnsRequestID
        self.apnsUniqueID = apnsUniqueID
        self.apnsLatencyMilliseconds = apnsLatencyMilliseconds
        self.ingestToSendMilliseconds = ingestToSendMilliseconds
        self.ingestToClaimMilliseconds = ingestToClaimMilliseconds
    }
}
