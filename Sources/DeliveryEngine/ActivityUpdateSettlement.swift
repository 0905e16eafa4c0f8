import Foundation
import ScorecastCore

/// What APNs' answer to a token-path update does to the activity's token, its budget and its
/// pending row: the other half of ``ActivityUpdateMerge``, and the only place these rules are
/// written.
///
/// ``settle(_:now:retry:using:)`` decides once per answer; ``Settlement/write(on:)`` then
/// applies the decision to the row as the store holds it. The store writes a batch's results
/// in one statement fenced on each row's lease owner and the version it was decided on; a row
/// changed during the send is read again under its lock and decided on what it holds now.
///
/// | answer | token | budget | row still the claimed version | row changed during the send |
/// |---|---|---|---|---|
/// | delivered | shows the sent timestamp; counted downgraded when it went at 5 for want of budget | a priority-10 send at `now` when it went at 10 | deleted | released, attempts reset, due as it is |
/// | token dead | pruned, unless it rotated since | — | deleted | deleted |
/// | refused for good | — | — | deleted | released, attempts reset, due as it is |
/// | retryable, attempts left | — | — | released, due after the backoff, attempts kept | released, attempts reset, due as it is; the send's alert rides on the newer state when that has none |
/// | retryable, attempts spent | — | — | deleted | released, attempts reset, due as it is |
///
/// A newer update that arrived during the send is never held back by the older one's outcome:
/// it stays due and starts its own attempts. The send's alert was left off it while the send was
/// on its way (``ActivityUpdateMerge``); a send that will be retried is no longer on its way, so
/// its alert then rides on the newer state (``Settlement/update(replacing:sent:)``), as on any
/// pending update: an alert is dropped only when APNs refused it for good or its attempts ran
/// out.
public enum ActivityUpdateSettlement {
    /// A claimed update and APNs' answer to it.
    public struct Answer: Sendable, Hashable {
        /// The row version the claim leased (and the send carried).
        public var claimedVersion: Int64
        /// The attempt this send was (the claim counts it).
        public var attempt: Int
        /// `aps.timestamp` of the payload sent.
        public var timestamp: Int64
        /// What APNs' answer means for the token.
        public var verdict: DevicePushVerdict
        /// APNs' `Retry-After`, in seconds, when it sent one.
        public var retryAfter: Double?
        /// Whether it went at priority 10.
        public var immediate: Bool
        /// Whether it wanted priority 10 and went at 5 because the activity's budget was spent.
        public var downgraded: Bool

        /// Creates an answer.
        public init(
            claimedVersion: Int64, attempt: Int, timestamp: Int64, verdict: DevicePushVerdict, retryAfter: Double? = nil,
            immediate: Bool = false, downgraded: Bool = false
        ) {
            self.claimedVersion = claimedVersion
            self.attempt = attempt
            self.timestamp = timestamp
            self.verdict = verdict
            self.retryAfter = retryAfter
            self.immediate = immediate
            self.downgraded = downgraded
        }
    }

    /// How the update ended, as counted (`scorecast_activity_updates_total{outcome}`).
    public typealias Outcome = DevicePushAnswer.Outcome

    /// The row of `activity_outbox` as the store holds it when a decision is applied.
    public struct Row: Sendable, Hashable {
        /// `version`.
        public var version: Int64
        /// `due_at`.
        public var dueAt: Date
        /// `attempts`.
        public var attempts: Int

        /// Creates a row.
        public init(version: Int64, dueAt: Date, attempts: Int) {
            self.version = version
            self.dueAt = dueAt
            self.attempts = attempts
        }
    }

    /// What becomes of the row.
    public enum RowWrite: Sendable, Hashable {
        /// It is deleted.
        case delete
        /// It is given back (no lease) with these values.
        case release(dueAt: Date, attempts: Int, lastError: String?)
    }

    /// The decision on one answer.
    public struct Settlement: Sendable, Hashable {
        /// The row version the decision is about.
        public var claimedVersion: Int64
        /// How the update ended.
        public var outcome: Outcome
        /// APNs' reason (or ours) when it was not delivered; empty when it was.
        public var reason: String
        /// Delivered: the timestamp the activity now shows (the token's `last_timestamp`).
        public var shownTimestamp: Int64?
        /// Delivered at priority 5 because the activity's budget was spent.
        public var downgraded: Bool
        /// Delivered at priority 10: the time the activity's budget spent it.
        public var budgetSpentAt: Date?
        /// The token is dead: the reason it is pruned with.
        public var prunedReason: String?
        /// Retried: when the claimed version is due again.
        public var retryAt: Date?

        /// The update the row holds after this send when a newer one (`current`) replaced it
        /// during the send, `sent` being what was sent; `nil` when `current` stays as it is. Only a
        /// send that will be retried gives its alert back: it rides on `current` when that has
        /// none of its own, by the rule of a pending update not yet on its way.
        public func update(replacing current: ActivityUpdate, sent: ActivityUpdate) -> ActivityUpdate? {
            guard outcome == .retried else { return nil }
            let merged = ActivityUpdateMerge.merge(pending: sent, inFlight: false, update: current)
            return merged == current ? nil : merged
        }

        /// What becomes of `row`, the activity's row as held now.
        public func write(on row: Row) -> RowWrite {
            if prunedReason != nil { return .delete }
            guard row.version == claimedVersion else {
                return .release(dueAt: row.dueAt, attempts: 0, lastError: outcome == .sent ? nil : reason)
            }
            guard let retryAt else { return .delete }
            return .release(dueAt: retryAt, attempts: row.attempts, lastError: reason)
        }
    }

    /// Decides what `answer`, received at `now`, does; a retry waits as `retry` says, its
    /// jitter drawn from `random`.
    public static func settle(
        _ answer: Answer, now: Date, retry: RetryPolicy, using random: inout some RandomNumberGenerator
    ) -> Settlement {
        let pushed = DevicePushAnswer.settle(answer.verdict, attempt: answer.attempt, retryAfter: answer.retryAfter, retry: retry, using: &random)
        var settlement = Settlement(
            claimedVersion: answer.claimedVersion, outcome: pushed.outcome, reason: pushed.reason, shownTimestamp: nil, downgraded: false,
            budgetSpentAt: nil, prunedReason: pushed.prunedReason, retryAt: pushed.retryDelay.map(now.addingTimeInterval))
        if pushed.outcome == .sent {
            settlement.shownTimestamp = answer.timestamp
            settlement.downgraded = answer.downgraded
            settlement.budgetSpentAt = answer.immediate ? now : nil
        }
        return settlement
    }
}
