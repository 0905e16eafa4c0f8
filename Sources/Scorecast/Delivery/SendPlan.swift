import APNsCore
import DeliveryEngine
import Foundation
import ScorecastCore

/// How one claimed row is sent: the body (the newest state with the head of the alert queue,
/// ``ComposedSend``, an `end` dismissed the app's delay after `now`), the priority after the
/// channel's budget had its say, and the `apns-expiration` its storage policy allows. Pure:
/// time is passed in.
package struct SendPlan: Sendable, Hashable {
    /// `apns-priority` to send.
    package var priority: BroadcastPriority
    /// Whether a wanted 10 was lowered to 5 because the budget is spent.
    package var downgraded: Bool
    /// `apns-expiration`: 0 on No-Message-Stored channels, now + lifetime (≤ 8 h) on Most-Recent.
    package var expiration: Int
    /// The budget policy of the channel's app.
    package var budgetPolicy: BudgetPolicy
    /// The channel's budget before this send (its ledger at the claim).
    package var budget: ChannelBudget
    /// The exact bytes to send.
    package var body: [UInt8]
    /// Their `aps.timestamp`.
    package var timestamp: Int64
    /// Whether the row's head alert had to be left out (it does not fit beside the state): an
    /// alert dropped by policy, counted.
    package var alertDropped: Bool
    /// Whether ``body`` carries an alert.
    package var carriesAlert: Bool
    /// What the send shows (written to `channels.last_shown` once APNs accepts it).
    package var shown: ShownState?
    /// Whether the send would repeat the channel's last accepted one (``ComposedSend``): the
    /// worker does not send it and finishes the row.
    package var repeatsLastAccepted: Bool

    /// Plans the send of `claim` at `now` under `settings`.
    package init(claim: ClaimedDelivery, now: Date, settings: WorkerSettings) {
        let policy = settings.budgetPolicy(for: claim.app)
        let decision = claim.budget.decide(wanting: claim.requestedPriority, now: now, policy: policy, final: claim.headAlertIsFinal)
        priority = decision.priority
        downgraded = decision.downgraded
        expiration = claim.storagePolicy.expirationHeader(
            now: Int(now.timeIntervalSince1970), desiredOffset: Int(settings.storedMessageLifetime.components.seconds))
        budgetPolicy = policy
        budget = claim.budget
        let composed = ComposedSend.compose(
            stored: claim.payload, storedTimestamp: Int(claim.payloadTimestamp), alert: claim.headAlert?.alert,
            alertsAfter: max(0, claim.queuedAlerts - 1), channelLastTimestamp: Int(claim.lastTimestamp),
            lastAccepted: claim.lastShown,
            dismissalDate: DismissalDate.of(endSentAt: Int(now.timeIntervalSince1970.rounded(.down)), delay: claim.app.dismissalDelaySeconds))
        body = composed.body
        timestamp = Int64(composed.timestamp)
        alertDropped = claim.headAlert != nil && !composed.alertSent
        carriesAlert = claim.headAlert != nil && composed.alertSent
        shown = composed.shown
        repeatsLastAccepted = composed.repeatsLastAccepted
    }
}
