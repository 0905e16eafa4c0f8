import APNsCore
import Foundation
import ScorecastCore

/// One channel's outbox as a state machine: the rules that decide what a channel is sent, at
/// which priority, when, and what is left after each answer, composed in the order a send
/// lives through them. No I/O and no clock: the time is an input of every transition.
///
/// The service runs these same rules spread over processes: ingest merges (``OutboxMerge``)
/// and upserts the row; a worker's claim leases it and plans the send (``PlannedSend``); APNs'
/// answer is classified (``DeliveryDecision``, ``AnsweredSend``); the completion settles the
/// row (``OutboxSettlement``) and appends the budget's entry (``ChannelBudget``), written by the
/// store fenced on the row's lease and version. This type composes them for one channel, so
/// that long random sequences of inputs can be checked against the channel's promise without
/// Postgres (`ChannelOutboxModelTests`).
///
/// | input | when | next state | effects |
/// |---|---|---|---|
/// | ingest an update | no row | a row with the update's state, its alert queued, version 1 | — |
/// | ingest an update | a row, leased or not | merged: the newest state, the alert appended, retry state reset, version + 1; the lease stays | — |
/// | claim at `now` | row due, not backing off, lease absent or run out, channel live, app running | leased to the claimer | the send planned: state + head alert, priority 10 only within the budget (the final whistle may spend the reserve), `end` only with the last alert |
/// | claim at `now` | anything else | unchanged | — |
/// | answer: accepted | lease held | settled as `finish` | recorded; the phones show the send; the budget counts it |
/// | answer: 429 | lease held | settled as `retry` after the backoff | recorded; the budget shrinks and bars priority 10 for `Retry-After` |
/// | answer: retryable, or retries spent | lease held | settled as `retry` after the backoff: the state never drops | recorded |
/// | answer: refused for good | lease held | settled as `finish`, its alert dropped | recorded |
/// | answer: channel gone | lease held | settled as `cancel` | recorded; the channel retires |
/// | answer: credentials refused | lease held | settled as a release | recorded; the app pauses |
/// | not sent: the send repeats the last accepted one | lease held | settled as `finish` | — |
/// | not sent: shutdown | lease held | settled as a release | — |
/// | any answer | lease lost (run out and taken over) | unchanged: fenced out | — |
public struct ChannelOutbox: Sendable, Hashable {
    /// The settings every transition reads.
    public struct Rules: Sendable, Hashable {
        /// The channel's priority-10 budget.
        public var budget: BudgetPolicy
        /// Retries and their backoff.
        public var retry: RetryPolicy
        /// Seconds between routine sends to the channel.
        public var routineInterval: Double
        /// Seconds a claim holds the row.
        public var leaseSeconds: Double
        /// Seconds an ended activity stays on the Lock Screen after its `end` is sent.
        public var dismissalDelaySeconds: Int
        /// The channel's storage policy.
        public var storagePolicy: ChannelStoragePolicy

        /// Creates the rules.
        public init(
            budget: BudgetPolicy, retry: RetryPolicy, routineInterval: Double, leaseSeconds: Double, dismissalDelaySeconds: Int = 900,
            storagePolicy: ChannelStoragePolicy = .noMessageStored
        ) {
            self.budget = budget
            self.retry = retry
            self.routineInterval = routineInterval
            self.leaseSeconds = leaseSeconds
            self.dismissalDelaySeconds = dismissalDelaySeconds
            self.storagePolicy = storagePolicy
        }
    }

    /// The pending row: what will be sent, its version, and who holds it.
    public struct Pending: Sendable, Hashable {
        /// The state, the alert queue, the events, due time and retry state.
        public var entry: OutboxEntry
        /// Raised by every merge: a completion fenced on an older one knows ingest wrote since.
        public var version: Int64
        /// The last failed attempt's error.
        public var lastError: String?
        /// The worker holding the row, if any.
        public var lease: Lease?

        /// Whether a worker may claim the row at `now`.
        public func isClaimable(at now: Date) -> Bool {
            entry.claimableAt <= now && (lease.map { $0.hasRunOut(at: now) } ?? true)
        }
    }

    /// A worker's hold on the row.
    public struct Lease: Sendable, Hashable {
        /// The worker.
        public var owner: String
        /// When the hold runs out and another worker may take the row over.
        public var expiresAt: Date

        /// `owner`'s hold until `expiresAt`.
        public init(owner: String, expiresAt: Date) {
            self.owner = owner
            self.expiresAt = expiresAt
        }

        /// Whether the hold has run out at `now`: it holds from the claim until just before
        /// `expiresAt` (the rule every queue's SQL applies, `LeasedQueue`).
        public func hasRunOut(at now: Date) -> Bool {
            expiresAt <= now
        }
    }

    /// A send a worker claimed: what it carries and how it goes.
    public struct Claim: Sendable, Hashable {
        /// The worker.
        public var owner: String
        /// The row version sent.
        public var version: Int64
        /// The events the row carried.
        public var eventIDs: [Int64]
        /// The row's coalesced count.
        public var coalesced: Int
        /// When it was claimed.
        public var claimedAt: Date
        /// The key of the alert the send carries (the queue's head), if any.
        public var headAlertKey: String?
        /// The 1-based attempt this send makes.
        public var attempt: Int
        /// The send.
        public var plan: PlannedSend
    }

    /// What a completion asks the caller to do besides keeping this state.
    public enum Effect: Sendable, Hashable {
        /// Record the attempt (`deliveries`).
        case record(DeliveryOutcome)
        /// The phones now show the send.
        case shown(PlannedSend)
        /// Append this entry to the channel's budget ledger.
        case budget(ChannelBudget.Entry)
        /// Mark the channel gone.
        case retireChannel
        /// Pause the channel's app with this reason.
        case pauseApp(reason: String)
    }

    /// The settings.
    public var rules: Rules
    /// The pending row; `nil` when the channel is owed nothing.
    public var pending: Pending?
    /// The newest `aps.timestamp` APNs accepted for the channel.
    public var lastTimestamp: Int64 = 0
    /// What the channel's last accepted send showed.
    public var lastShown: ShownState?
    /// When APNs last accepted a send (spaces routine updates).
    public var lastSentAt: Date?
    /// The channel's priority-10 budget.
    public var budget = ChannelBudget()
    /// Whether APNs said the channel is gone.
    public var retired = false
    /// Whether the app's sends are paused.
    public var paused = false

    /// A channel owed nothing yet.
    public init(rules: Rules) {
        self.rules = rules
    }

    // MARK: - Transitions

    /// Ingest: `update` arrives at `now` and merges into the row (the lease, if any, stays).
    public mutating func ingest(_ update: RenderedUpdate, now: Date) {
        let dueAt = ShapingPolicy(routineInterval: rules.routineInterval).dueAt(isAlerting: update.isAlerting, now: now, lastSentAt: lastSentAt)
        guard var row = pending else {
            pending = Pending(entry: OutboxEntry(update: update, dueAt: dueAt, now: now), version: 1)
            return
        }
        row.entry = OutboxMerge.merge(pending: row.entry, update: update, dueAt: dueAt, now: now)
        row.version += 1
        row.lastError = nil
        pending = row
    }

    /// A claim by `owner` at `now`: the send it plans, or `nil` when the row is not claimable.
    /// A lease that ran out is taken over (its holder is presumed dead). `isFinal` says whether
    /// an alert key is the final whistle's.
    public mutating func claim(owner: String, now: Date, isFinal: (String) -> Bool = { _ in false }) -> Claim? {
        guard !retired, !paused, var row = pending, row.isClaimable(at: now) else { return nil }
        row.lease = Lease(owner: owner, expiresAt: now.addingTimeInterval(rules.leaseSeconds))
        pending = row
        let head = row.entry.alerts.first
        let plan = PlannedSend(
            payload: row.entry.body, payloadTimestamp: Int64(row.entry.payload.timestamp), requestedPriority: row.entry.priority,
            headAlert: head, queuedAlerts: row.entry.alerts.count, headAlertIsFinal: head.map { isFinal($0.key) } ?? false,
            channel: PlannedSend.Channel(lastTimestamp: lastTimestamp, lastShown: lastShown, budget: budget, storagePolicy: rules.storagePolicy),
            policy: rules.budget, dismissalDelaySeconds: rules.dismissalDelaySeconds, storedMessageLifetime: 0, now: now)
        return Claim(
            owner: owner, version: row.version, eventIDs: row.entry.eventIDs.compactMap { Int64($0) }, coalesced: row.entry.coalesced,
            claimedAt: now, headAlertKey: head?.key, attempt: row.entry.attempts + 1, plan: plan)
    }

    /// The end of `claim`'s send at `now`: `result` is APNs' answer, `nil` when nothing was sent
    /// (shutdown). A send that would repeat the last accepted one is finished unsent. Returns
    /// the effects; none when the claimer no longer holds the row (fenced out).
    @discardableResult
    public mutating func complete(_ claim: Claim, result: SendResult?, now: Date, random: inout some RandomNumberGenerator) -> [Effect] {
        guard let row = pending, row.lease?.owner == claim.owner else { return [] }
        var effects: [Effect] = []
        var action = OutboxSettlement.Action.release
        var settledAlert: String?
        if claim.plan.repeatsLastAccepted {
            action = .finish
        } else if let result {
            let decision = DeliveryDecision.decide(
                after: result, attempt: claim.attempt, tokenWasRenewed: true, now: now, policy: rules.retry, random: &random)
            let answered = AnsweredSend(decision, on: result, plan: claim.plan, now: now, minimumDelay: rules.retry.minimumDelay)
            action = answered.action
            effects.append(.record(answered.outcome))
            if answered.settlesAlert { settledAlert = claim.headAlertKey }
            if answered.accepted {
                lastTimestamp = max(lastTimestamp, claim.plan.timestamp)
                lastShown = claim.plan.shown
                lastSentAt = now
                effects.append(.shown(claim.plan))
            }
            if let entry = answered.budgetEntry {
                budget = budget.appending(entry)
                effects.append(.budget(entry))
            }
        }
        let completed = OutboxSettlement.Completed(
            action: action, claimedVersion: claim.version, claimedEventIDs: claim.eventIDs, claimedCoalesced: claim.coalesced,
            claimedAt: claim.claimedAt, sentAlertKey: settledAlert)
        pending = Self.settled(row, by: completed, now: now, routineInterval: rules.routineInterval)
        switch action {
        case .cancelChannel:
            retired = true
            effects.append(.retireChannel)
        case .pauseApp(let reason):
            paused = true
            effects.append(.pauseApp(reason: reason))
        case .finish, .retry, .release:
            break
        }
        return effects
    }

    /// `row` after ``OutboxSettlement`` settled `completed` on it (`nil`: deleted).
    static func settled(_ row: Pending, by completed: OutboxSettlement.Completed, now: Date, routineInterval: Double) -> Pending? {
        let entry = row.entry
        let stored = OutboxSettlement.Row(
            version: row.version, alerts: entry.alerts, alerting: entry.isAlerting, priority: entry.priority, dueAt: entry.dueAt,
            notBefore: entry.notBefore, attempts: entry.attempts, lastError: row.lastError,
            eventIDs: entry.eventIDs.compactMap { Int64($0) }, coalesced: entry.coalesced, firstIngestedAt: entry.enqueuedAt)
        guard let kept = OutboxSettlement.settle(completed, row: stored, receivedAt: [:], now: now, routineInterval: routineInterval) else {
            return nil
        }
        var next = row
        next.entry.alerts = kept.alerts
        next.entry.priority = kept.priority
        next.entry.dueAt = kept.dueAt
        next.entry.notBefore = kept.notBefore
        next.entry.attempts = kept.attempts
        next.entry.eventIDs = kept.eventIDs.map(String.init)
        next.entry.coalesced = kept.coalesced
        next.entry.enqueuedAt = kept.firstIngestedAt
        next.lastError = kept.lastError
        next.lease = nil
        return next
    }
}
