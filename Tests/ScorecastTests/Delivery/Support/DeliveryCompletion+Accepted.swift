import Delivery
import DeliveryEngine

extension DeliveryCompletion {
    /// A completion of `claim` that APNs accepted (status 200) at the priority it asked for,
    /// with `budget`'s ledger entry if any.
    static func accepted(_ claim: ClaimedDelivery, budget: ChannelBudget.Entry? = nil) -> DeliveryCompletion {
        DeliveryCompletion(
            channelID: claim.channelID, claimedVersion: claim.version, appID: claim.app.id, action: .finish,
            delivery: DeliveryRecord(
                eventIDs: claim.eventIDs, outboxVersion: claim.version, requestedPriority: claim.requestedPriority,
                priority: claim.requestedPriority, downgraded: false, coalesced: claim.coalesced, attempt: claim.attempt,
                outcome: .sent, statusCode: 200, reason: nil, apnsRequestID: "req", apnsUniqueID: "uniq",
                apnsLatencyMilliseconds: 1.5, ingestToSendMilliseconds: 3.25, ingestToClaimMilliseconds: 1.25),
            budgetEntry: budget, sentTimestamp: claim.payloadTimestamp, claimedEventIDs: claim.eventIDs,
            claimedCoalesced: claim.coalesced, claimedAt: claim.claimedAt)
    }
}
