import APNsCore
import Foundation

/// One channel's priority-10 budget as APNs counts it: over the rolling hour ending now
/// (``BudgetPolicy/windowSeconds``), never per clock hour, so a match crossing the hour cannot
/// spend two budgets and every reader (sending, statistics, the dashboard, `/metrics`) sees the
/// same figure at the same time.
///
/// The state is the channel's budget ledger (`budget_ledger`: one entry per accepted priority-10
/// send and per 429): the window's entries, and the latest 429 within
/// ``BudgetPolicy/memorySeconds`` (its lowered limit recovers over hours). A send lowered to 5
/// spends nothing, so the ledger has no entry for it: its delivery record says it was
/// downgraded, which is what the statistics count (a channel past its budget downgrades every
/// alert, so those records grow without bound, where the ledger is bounded by the budget). This
/// type makes every decision; the store only appends the entries it returns and reads them back.
/// Time is always passed in.
///
/// | input | rule | ledger entry |
/// |---|---|---|
/// | a send wanting 10 | 10 while the window's sends are under the limit (the last ``BudgetPolicy/finalReserve`` only for the final whistle) and no 429 bars it; else 5, *downgraded* | – |
/// | APNs accepts a 10 | counts against the window for an hour | `priority10` |
/// | APNs accepts a downgraded 5 | spends nothing (its delivery record counts it for the statistics) | – |
/// | a 429 | the limit shrinks (``BudgetPolicy/shrinkFactor``, floor ``BudgetPolicy/minimumPerHour``) and grows back by ``BudgetPolicy/recoveryPerHour`` per full hour; no 10 before its `Retry-After` (capped by the retry policy) | `throttled` |
public struct ChannelBudget: Sendable, Hashable {
    /// A 429 as the ledger remembers it.
    public struct Throttle: Sendable, Hashable {
        /// When it came.
        public var at: Date
        /// The limit it left, before recovery.
        public var limitAfter: Int
        /// No priority 10 before this (the answer's `Retry-After`, capped).
        public var barredUntil: Date

        /// Creates a throttle.
        public init(at: Date, limitAfter: Int, barredUntil: Date) {
            self.at = at
            self.limitAfter = max(0, limitAfter)
            self.barredUntil = barredUntil
        }
    }

    /// One entry to append to the channel's ledger.
    public enum Entry: Sendable, Hashable {
        /// APNs accepted a priority-10 send.
        case priority10(at: Date)
        /// APNs answered 429.
        case throttled(Throttle)

        /// The entry's `kind` in the ledger.
        public var kind: String {
            switch self {
            case .priority10: "priority10"
            case .throttled: "throttled"
            }
        }

        /// When it happened.
        public var at: Date {
            switch self {
            case .priority10(let at): at
            case .throttled(let throttle): throttle.at
            }
        }
    }

    /// Accepted priority-10 sends, at least those of the window ending at the time asked about
    /// (older ones count for nothing).
    public var immediateSends: [Date]
    /// 429 answers, likewise.
    public var throttles: [Date]
    /// The latest 429, if any within ``BudgetPolicy/memorySeconds``.
    public var lastThrottle: Throttle?

    /// Creates a budget state from ledger entries; a new channel has none.
    public init(immediateSends: [Date] = [], throttles: [Date] = [], lastThrottle: Throttle? = nil) {
        self.immediateSends = immediateSends
        self.throttles = throttles
        self.lastThrottle = lastThrottle
    }

    /// The start of the window ending at `now`: entries at or before it count for nothing.
    public static func windowStart(endingAt now: Date, policy: BudgetPolicy) -> Date {
        now.addingTimeInterval(-policy.windowSeconds)
    }

    /// The oldest 429 that still lowers a limit at `now`.
    public static func memoryStart(endingAt now: Date, policy: BudgetPolicy) -> Date {
        now.addingTimeInterval(-policy.memorySeconds)
    }

    /// The priority-10 limit at `now`: the profile's, or the one the last 429 left, growing back
    /// by ``BudgetPolicy/recoveryPerHour`` per full hour since.
    public func limit(now: Date, policy: BudgetPolicy) -> Int {
        let full = policy.profile.immediatePerHour
        guard let lastThrottle, lastThrottle.at > Self.memoryStart(endingAt: now, policy: policy) else { return full }
        let hours = max(0, Int((now.timeIntervalSince(lastThrottle.at) / 3600).rounded(.down)))
        let (recovery, overflow) = hours.multipliedReportingOverflow(by: policy.recoveryPerHour)
        if overflow { return full }
        return min(full, lastThrottle.limitAfter + recovery)
    }

    /// Priority-10 sends counted against the limit at `now`.
    public func used(now: Date, policy: BudgetPolicy) -> Int {
        Self.count(immediateSends, endingAt: now, policy: policy)
    }

    /// When a 429 bars priority 10 at `now`, until when; `nil` when nothing bars it.
    public func barredUntil(now: Date) -> Date? {
        guard let until = lastThrottle?.barredUntil, until > now else { return nil }
        return until
    }

    /// What priority to send when `wanting` is asked for at `now`; `final` says the send carries
    /// the final whistle, the only one that may spend the last ``BudgetPolicy/finalReserve``.
    /// Changes nothing: the ledger counts a send once APNs accepted it (``accepted(priority:at:)``).
    public func decide(wanting: BroadcastPriority, now: Date, policy: BudgetPolicy, final: Bool = false) -> BudgetDecision {
        let budgetLeft = max(0, limit(now: now, policy: policy) - used(now: now, policy: policy))
        let left = final ? budgetLeft : max(0, budgetLeft - policy.finalReserve)
        guard wanting == .immediate else {
            return BudgetDecision(priority: wanting, downgraded: false, remaining: left)
        }
        if barredUntil(now: now) != nil {
            return BudgetDecision(priority: .opportunistic, downgraded: true, remaining: left)
        }
        if left > 0 {
            return BudgetDecision(priority: .immediate, downgraded: false, remaining: left - 1)
        }
        return BudgetDecision(priority: .opportunistic, downgraded: true, remaining: 0)
    }

    /// The ledger entry for a send APNs accepted at `at`; `nil` for a priority-5 send, routine
    /// or downgraded, which spends nothing.
    public func accepted(priority: BroadcastPriority, at: Date) -> Entry? {
        priority == .immediate ? .priority10(at: at) : nil
    }

    /// The ledger entry for a `429 TooManyRequests` at `now`: the limit in force shrinks, and no
    /// priority 10 goes before `barredUntil` (the answer's `Retry-After`, already capped).
    public func throttled(now: Date, barredUntil: Date, policy: BudgetPolicy) -> Entry {
        let current = limit(now: now, policy: policy)
        let shrunk = max(policy.minimumPerHour, Int((Double(current) * policy.shrinkFactor).rounded(.down)))
        return .throttled(Throttle(at: now, limitAfter: min(shrunk, policy.profile.immediatePerHour), barredUntil: max(now, barredUntil)))
    }

    /// This state with `entry` appended, as the ledger will read it back.
    public func appending(_ entry: Entry) -> ChannelBudget {
        var next = self
        switch entry {
        case .priority10(let at): next.immediateSends.append(at)
        case .throttled(let throttle):
            next.throttles.append(throttle.at)
            if next.lastThrottle.map({ $0.at <= throttle.at }) ?? true { next.lastThrottle = throttle }
        }
        return next
    }

    /// The figures the statistics show at `now`: the same that the next send is held to, with
    /// `downgrades`, the window's downgraded sends as their delivery records count them.
    public func usage(now: Date, policy: BudgetPolicy, downgrades: Int) -> BudgetUsage {
        BudgetUsage(
            windowStart: Self.windowStart(endingAt: now, policy: policy), priority10Used: used(now: now, policy: policy),
            priority10Limit: limit(now: now, policy: policy), downgrades: downgrades,
            throttled: Self.count(throttles, endingAt: now, policy: policy), barredUntil: barredUntil(now: now))
    }

    /// The entries of `times` inside the window ending at `now`.
    private static func count(_ times: [Date], endingAt now: Date, policy: BudgetPolicy) -> Int {
        let start = windowStart(endingAt: now, policy: policy)
        return times.reduce(0) { $0 + ($1 > start && $1 <= now ? 1 : 0) }
    }
}

/// A channel's budget figures over the rolling window ending at one moment.
public struct BudgetUsage: Sendable, Hashable {
    /// Where the window starts (an hour before the moment).
    public var windowStart: Date
    /// Priority-10 sends APNs accepted in the window.
    public var priority10Used: Int
    /// Priority-10 sends allowed in the window (the profile's, lowered after a 429).
    public var priority10Limit: Int
    /// Sends lowered from 10 to 5 in the window.
    public var downgrades: Int
    /// 429 answers in the window.
    public var throttled: Int
    /// No priority 10 before this (a 429's `Retry-After`); `nil` when nothing bars it.
    public var barredUntil: Date?
}
