import APNs
import DeliveryEngine
import Foundation
import JSON
import ScorecastCore

/// Turns a send's outcome into what the worker writes (``DeliveryCompletion``): the client's own
/// failures here, APNs' answers by way of ``DeliveryDecision`` and ``AnsweredSend`` (apns.md
/// §8). Pure: time and randomness are passed in.
package enum CompletionPlanner {
    /// What follows `outcome` for `claim`, sent as `plan` says; `now` is when the answer came,
    /// `plannedAt` when the worker, having claimed the row, planned its send (`nil`: not known).
    ///
    /// The APNs client already renews an expired provider token and retries once by itself, so
    /// an `ExpiredProviderToken` that reaches here came with a fresh token: the key or clock is
    /// broken, and the app is paused like for any other credential error.
    package static func completion(
        for claim: ClaimedDelivery,
        plan: PlannedSend,
        outcome: SendOutcome,
        now: Date,
        plannedAt: Date? = nil,
        policy: RetryPolicy,
        random: inout some RandomNumberGenerator
    ) -> DeliveryCompletion {
        var completion = DeliveryCompletion(claim: claim)
        // An alert send counts the alert's event and its wait; a state send the row's.
        var eventIDs = claim.eventIDs
        if let key = claim.headAlert?.key, let id = Int64(key), !eventIDs.contains(id) { eventIDs.append(id) }
        let since = claim.headAlert?.queuedAt ?? claim.firstIngestedAt
        var record = DeliveryRecord(
            eventIDs: eventIDs, outboxVersion: claim.version, requestedPriority: claim.requestedPriority,
            priority: plan.priority, downgraded: plan.downgraded, coalesced: claim.coalesced, attempt: claim.attempt,
            outcome: .failed, statusCode: nil, reason: nil, apnsRequestID: nil, apnsUniqueID: nil,
            apnsLatencyMilliseconds: nil,
            ingestToSendMilliseconds: max(0, now.timeIntervalSince(since) * 1000),
            ingestToClaimMilliseconds: plannedAt.map { max(0, $0.timeIntervalSince(since) * 1000) })
        /// The send settled the head alert: it leaves the queue (dropped when it was not in the body or refused).
        func settleAlert(dropped: Bool) {
            guard let key = claim.headAlert?.key else { return }
            completion.sentAlertKey = key
            completion.alertDropped = dropped
        }

        let result: SendResult
        switch outcome {
        case .answered(let response):
            record.statusCode = response.status
            record.reason = response.reason?.rawValue
            record.apnsRequestID = response.requestID
            record.apnsUniqueID = response.uniqueID
            record.apnsLatencyMilliseconds = response.latency.milliseconds
            result = .response(
                status: response.status, reason: response.reason,
                retryAfter: response.retryAfter.flatMap { RetryAfter.seconds(from: $0, now: now) })
        case .failed(let error):
            if let failure = error.transportFailure {
                record.reason = failure.description
                result = .transportFailure(failure)
            } else {
                switch error.outcome {
                case nil:
                    // Cancelled or shut down: our own doing, nothing to record; the row goes back.
                    return completion
                case .credentialsBroken?:
                    record.reason = "invalid credentials: \(error.message)"
                    record.outcome = .paused
                    completion.action = .pauseApp(reason: record.reason ?? "invalid credentials")
                case .configuration?:
                    // This process's APNs settings are unusable: the row is not at fault, keep
                    // it (backing off) until an operator fixes the settings.
                    record.reason = "APNs client misconfigured: \(error.message)"
                    record.outcome = .retry
                    let wait = policy.delay(afterAttempt: claim.attempt, retryAfter: nil, using: &random)
                    completion.action = .retry(delay: wait, error: record.reason ?? "APNs client misconfigured")
                    completion.alert = record.reason
                default:
                    // Refused by the client before sending (our bug, e.g. a body over 5,120 bytes):
                    // sending it again cannot help.
                    record.reason = "refused before sending (\(error.code.rawValue)): \(error.message)"
                    record.outcome = .failed
                    completion.action = .finish
                    settleAlert(dropped: true)
                }
                completion.delivery = record
                return completion
            }
        case .credentialsUnavailable(let message):
            record.reason = "credentials unavailable: \(message)"
            record.outcome = .paused
            completion.action = .pauseApp(reason: record.reason ?? "credentials unavailable")
            completion.delivery = record
            return completion
        }

        let decision = DeliveryDecision.decide(
            after: result, attempt: claim.attempt, tokenWasRenewed: true, now: now, policy: policy, random: &random)
        let answered = AnsweredSend(decision, on: result, plan: plan, now: now, minimumDelay: policy.minimumDelay)
        record.outcome = answered.outcome
        if record.reason == nil { record.reason = answered.reason }
        completion.action = answered.action
        completion.alert = answered.alert
        completion.budgetEntry = answered.budgetEntry
        if answered.accepted {
            completion.sentTimestamp = plan.timestamp
            completion.sentShown = plan.shown
            completion.acceptedBody = plan.body
            if plan.carriesAlert, let alert = claim.headAlert?.alert {
                // It encoded inside the body just sent, so it encodes alone.
                completion.acceptedAlert = try? JSONValue.object(["aps": .object(["alert": alert.jsonValue])]).encoded()
            }
        }
        if answered.settlesAlert { settleAlert(dropped: answered.alertDropped) }
        completion.delivery = record
        return completion
    }
}

extension CompletionPlanner {
    /// The completion of `claim` when its send would have repeated the channel's last accepted
    /// one: the row is finished unsent (deleted, or kept for what arrived meanwhile), nothing
    /// is recorded in `deliveries` and nothing about the channel changes.
    package static func repeatSkipped(_ claim: ClaimedDelivery) -> DeliveryCompletion {
        var completion = DeliveryCompletion(claim: claim)
        completion.action = .finish
        completion.skippedRepeat = true
        return completion
    }
}

extension Duration {
    /// The duration in milliseconds, as a `Double`.
    var milliseconds: Double {
        Double(components.seconds) * 1000 + Double(components.attoseconds) / 1e15
    }
}
