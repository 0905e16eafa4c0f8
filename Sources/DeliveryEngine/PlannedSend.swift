import APNsCore
import Foundation
import ScorecastCore

/// How one claimed row is sent: the body (the newest state with the head of the alert queue,
/// ``ComposedSend``, an `end` dismissed the app's delay after `now`), the priority after the
/// channel's budget had its say, and the `apns-expiration` its storage policy allows.
public struct PlannedSend: Sendable, Hashable {
    /// `apns-priority` to send.
    public var priority: BroadcastPriority
    /// Whether a wanted 10 was lowered to 5 because the budget is spent.
    public var downgraded: Bool
    /// `apns-expiration`: 0 on No-Message-Stored channels, now + lifetime (≤ 8 h) on Most-Recent.
    public var expiration: Int
    /// The budget policy of the channel's app.
    public var budgetPolicy: BudgetPolicy
    /// The channel's budget before this send (its ledger at the claim).
    public var budget: ChannelBudget
    /// The exact bytes to send.
    public var body: [UInt8]
    /// Their `aps.timestamp`.
    public var timestamp: Int64
    /// Whether the row's head alert had to be left out (it does not fit beside the state): an
    /// alert dropped by policy, counted.
    public var alertDropped: Bool
    /// Whether ``body`` carries an alert.
    public var carriesAlert: Bool
    /// What the send shows (the channel's `last_shown` once APNs accepts it).
    public var shown: ShownState?
    /// Whether the send would repeat the channel's last accepted one (``ComposedSend``): it is
    /// not sent, and the row is finished.
    public var repeatsLastAccepted: Bool

    /// What the channel's last accepted send left on its phones, as the plan needs it.
    public struct Channel: Sendable, Hashable {
        /// The newest `aps.timestamp` APNs accepted for the channel.
        public var lastTimestamp: Int64
        /// What its last accepted send showed, if known.
        public var lastShown: ShownState?
        /// Its priority-10 budget as the ledger stands.
        public var budget: ChannelBudget
        /// Its storage policy (decides `apns-expiration`).
        public var storagePolicy: ChannelStoragePolicy

        /// Creates the channel's side of a plan.
        public init(lastTimestamp: Int64, lastShown: ShownState?, budget: ChannelBudget, storagePolicy: ChannelStoragePolicy) {
            self.lastTimestamp = lastTimestamp
            self.lastShown = lastShown
            self.budget = budget
            self.storagePolicy = storagePolicy
        }
    }

    /// Plans the send, at `now`, of the stored state `payload` (its `aps.timestamp`
    /// `payloadTimestamp`, asking for `requestedPriority`) with `alerts`' head, to `channel`:
    /// `headAlertIsFinal` says the head alert is the final whistle's (the only send that may
    /// spend the budget's reserve); `policy` is the app's budget, `dismissalDelaySeconds` its
    /// delay after an `end`, `storedMessageLifetime` (seconds) how long APNs may keep the send.
    public init(
        payload: [UInt8], payloadTimestamp: Int64, requestedPriority: BroadcastPriority, headAlert: QueuedAlert?, queuedAlerts: Int,
        headAlertIsFinal: Bool, channel: Channel, policy: BudgetPolicy, dismissalDelaySeconds: Int, storedMessageLifetime: Int,
        now: Date
    ) {
        let decision = channel.budget.decide(wanting: requestedPriority, now: now, policy: policy, final: headAlertIsFinal)
        priority = decision.priority
        downgraded = decision.downgraded
        expiration = channel.storagePolicy.expirationHeader(now: Int(now.timeIntervalSince1970), desiredOffset: storedMessageLifetime)
        budgetPolicy = policy
        budget = channel.budget
        let composed = ComposedSend.compose(
            stored: payload, storedTimestamp: Int(payloadTimestamp), alert: headAlert?.alert,
            alertsAfter: max(0, queuedAlerts - 1), channelLastTimestamp: Int(channel.lastTimestamp),
            lastAccepted: channel.lastShown,
            dismissalDate: DismissalDate.of(endSentAt: Int(now.timeIntervalSince1970.rounded(.down)), delay: dismissalDelaySeconds))
        body = composed.body
        timestamp = Int64(composed.timestamp)
        alertDropped = headAlert != nil && !composed.alertSent
        carriesAlert = headAlert != nil && composed.alertSent
        shown = composed.shown
        repeatsLastAccepted = composed.repeatsLastAccepted
    }
}
