import DeliveryEngine
import Foundation

extension PlannedSend {
    /// Plans the send of `claim` at `now` under `settings`.
    package init(claim: ClaimedDelivery, now: Date, settings: WorkerSettings) {
        self.init(
            payload: claim.payload, payloadTimestamp: claim.payloadTimestamp, requestedPriority: claim.requestedPriority,
            headAlert: claim.headAlert, queuedAlerts: claim.queuedAlerts, headAlertIsFinal: claim.headAlertIsFinal,
            channel: PlannedSend.Channel(
                lastTimestamp: claim.lastTimestamp, lastShown: claim.lastShown, budget: claim.budget, storagePolicy: claim.storagePolicy),
            policy: settings.budgetPolicy(for: claim.app), dismissalDelaySeconds: claim.app.dismissalDelaySeconds,
            storedMessageLifetime: Int(settings.storedMessageLifetime.components.seconds), now: now)
    }
}
