import Foundation

/// What follows APNs' answer to a planned send, for its row, its record, the channel's budget
/// and the operator: ``DeliveryDecision`` (apns.md §8) carried to the outbox's terms.
public struct AnsweredSend: Sendable, Hashable {
    /// What becomes of the row (``OutboxSettlement``).
    public var action: OutboxSettlement.Action
    /// The attempt's `deliveries.outcome`.
    public var outcome: DeliveryOutcome
    /// Whether APNs accepted the send: the channel's phones now show it.
    public var accepted: Bool
    /// Whether the head alert is settled (it leaves the queue): sent, or refused for good.
    public var settlesAlert: Bool
    /// Whether the settled alert was dropped rather than announced.
    public var alertDropped: Bool
    /// The entry the channel's budget ledger gains (``ChannelBudget``), if any.
    public var budgetEntry: ChannelBudget.Entry?
    /// The reason recorded when the answer gave none of its own.
    public var reason: String?
    /// What an operator must hear, when the outcome is not just counted.
    public var alert: String?

    /// What follows `decision` on `result`, made at `now`, for `plan`; `minimumDelay` is the
    /// retry policy's shortest wait (a token renewal the client already made is answered by
    /// sending again).
    public init(_ decision: DeliveryDecision, on result: SendResult, plan: PlannedSend, now: Date, minimumDelay: Double) {
        accepted = false
        settlesAlert = false
        alertDropped = false
        budgetEntry = nil
        reason = nil
        alert = nil
        switch decision {
        case .done:
            action = .finish
            outcome = .sent
            accepted = true
            settlesAlert = true
            alertDropped = plan.alertDropped
            budgetEntry = plan.budget.accepted(priority: plan.priority, at: now)
        case .retry(let at, let reason):
            action = .retry(delay: max(0, at.timeIntervalSince(now)), error: reason)
            outcome = .retry
        case .throttled(let at, let priorityTenAfter, let reason):
            action = .retry(delay: max(0, at.timeIntervalSince(now)), error: reason)
            outcome = .retry
            budgetEntry = plan.budget.throttled(now: now, barredUntil: priorityTenAfter, policy: plan.budgetPolicy)
        case .renewTokenAndRetry:
            action = .retry(delay: minimumDelay, error: result.label)
            outcome = .retry
        case .gaveUp(let at, let reason, let loud):
            // The attempt failed for good; the state does not: it stays pending.
            action = .retry(delay: max(0, at.timeIntervalSince(now)), error: reason)
            outcome = .failed
            self.reason = reason
            alert = loud ? "\(reason); the newest state stays pending and goes when APNs answers again" : nil
        case .fail(let reason, let loud):
            action = .finish
            outcome = .failed
            settlesAlert = true
            alertDropped = true
            self.reason = reason
            alert = loud ? reason : nil
        case .channelGone:
            action = .cancelChannel
            outcome = .gone
            alert = "APNs no longer knows the channel (ChannelNotRegistered); it is marked gone"
        case .deviceTokenGone:
            // A device-token answer to a broadcast: nothing to forget, the send failed.
            action = .finish
            outcome = .failed
            settlesAlert = true
            alertDropped = true
        case .pauseApp(let reason, _):
            action = .pauseApp(reason: reason)
            outcome = .paused
        }
    }
}
