import APNsCore
import Foundation

/// One channel's priority-10 budget: a small state machine over fixed windows (the
/// `channel_budget` row), spent against a rolling window as APNs counts it: a decision counts
/// the priority-10 sends of the last ``BudgetPolicy/windowSeconds`` (``recentImmediateSends``),
/// so a match crossing the hour cannot spend two budgets. Time is always passed in.
///
/// ``decide(wanting:now:policy:)`` answers what priority to send; ``recordSent(priority:downgraded:now:policy:)``
/// counts a send APNs accepted; ``recordThrottled(now:policy:)`` shrinks the budget after a 429 and
/// spends the rest of the current window.
public struct ChannelBudget: Sendable, Hashable {
    /// Start of the window the counters belong to.
    public var windowStart: Date
    /// Priority-10 sends accepted in the window.
    public var immediateSent: Int
    /// Sends lowered from 10 to 5 in the window.
    public var downgraded: Int
    /// 429 answers in the window.
    public var throttleHits: Int
    /// The budget set by the last 429, before recovery; `nil` when at the profile's budget.
    public var shrunkLimit: Int?
    /// When the last 429 arrived.
    public var lastThrottledAt: Date?
    /// When accepted priority-10 sends went, ascending: at least those of the rolling window
    /// ending now (older ones are ignored).
    public var recentImmediateSends: [Date]

    /// Creates a budget state; ``fresh(now:policy:)`` is the usual start.
    public init(windowStart: Date, immediateSent: Int = 0, downgraded: Int = 0, throttleHits: Int = 0, shrunkLimit: Int? = nil, lastThrottledAt: Date? = nil, recentImmediateSends: [Date] = []) {
        self.windowStart = windowStart
        self.immediateSent = immediateSent
        self.downgraded = downgraded
        self.throttleHits = throttleHits
        self.shrunkLimit = shrunkLimit
        self.lastThrottledAt = lastThrottledAt
        self.recentImmediateSends = recentImmediateSends
    }

    /// An untouched budget in the window containing `now`.
    public static func fresh(now: Date, policy: BudgetPolicy) -> ChannelBudget {
        ChannelBudget(windowStart: windowStart(containing: now, policy: policy))
    }

    /// The start of the window containing `now`.
    public static func windowStart(containing now: Date, policy: BudgetPolicy) -> Date {
        let seconds = now.timeIntervalSince1970
        return Date(timeIntervalSince1970: (seconds / policy.windowSeconds).rounded(.down) * policy.windowSeconds)
    }

    /// The priority-10 budget per window at `now`: the profile's, or a shrunk one growing back
    /// by ``BudgetPolicy/recoveryPerHour`` per full hour since the last 429.
    public func limit(now: Date, policy: BudgetPolicy) -> Int {
        let full = policy.profile.immediatePerHour
        guard let shrunkLimit, let lastThrottledAt else { return full }
        let hours = max(0, Int((now.timeIntervalSince(lastThrottledAt) / 3600).rounded(.down)))
        let (recovery, overflow) = hours.multipliedReportingOverflow(by: policy.recoveryPerHour)
        if overflow { return full }
        return min(full, shrunkLimit + recovery)
    }

    /// The counters as they stand at `now` (a new window starts from zero).
    public func rolled(to now: Date, policy: BudgetPolicy) -> ChannelBudget {
        let start = ChannelBudget.windowStart(containing: now, policy: policy)
        guard start > windowStart else { return self }
        var next = self
        next.windowStart = start
        next.immediateSent = 0
        next.downgraded = 0
        next.throttleHits = 0
        if next.limit(now: now, policy: policy) >= policy.profile.immediatePerHour {
            next.shrunkLimit = nil
        }
        return next
    }

    /// Priority-10 sends that count against the budget at `now`: those of the rolling window
    /// ending at `now` (after `now - windowSeconds`, as APNs counts), or the clock window's count
    /// when that is higher (a 429 spends the rest of the clock window).
    public func used(now: Date, policy: BudgetPolicy) -> Int {
        let cutoff = now.addingTimeInterval(-policy.windowSeconds)
        let rolling = recentImmediateSends.reduce(0) { $0 + ($1 > cutoff && $1 <= now ? 1 : 0) }
        return max(rolling, rolled(to: now, policy: policy).immediateSent)
    }

    /// What priority to send when `wanting` is asked for at `now`; `final` says the send carries
    /// the final whistle, the only one that may spend the last ``BudgetPolicy/finalReserve``
    /// priority-10 sends. Does not change the state: count the send with
    /// ``recordSent(priority:downgraded:now:policy:)`` once APNs accepted it.
    public func decide(wanting: BroadcastPriority, now: Date, policy: BudgetPolicy, final: Bool = false) -> BudgetDecision {
        let budgetLeft = max(0, limit(now: now, policy: policy) - used(now: now, policy: policy))
        let left = final ? budgetLeft : max(0, budgetLeft - policy.finalReserve)
        guard wanting == .immediate else {
            return BudgetDecision(priority: wanting, downgraded: false, remaining: left)
        }
        if left > 0 {
            return BudgetDecision(priority: .immediate, downgraded: false, remaining: left - 1)
        }
        return BudgetDecision(priority: .opportunistic, downgraded: true, remaining: 0)
    }

    /// Counts a send accepted by APNs at `now`.
    public mutating func recordSent(priority: BroadcastPriority, downgraded wasDowngraded: Bool, now: Date, policy: BudgetPolicy) {
        self = rolled(to: now, policy: policy)
        if priority == .immediate {
            immediateSent += 1
            let cutoff = now.addingTimeInterval(-policy.windowSeconds)
            recentImmediateSends = recentImmediateSends.filter { $0 > cutoff } + [now]
        }
        if wasDowngraded { downgraded += 1 }
    }

    /// A `429 TooManyRequests` at `now`: the budget shrinks (``BudgetPolicy/shrinkFactor``,
    /// never below ``BudgetPolicy/minimumPerHour``) and the rest of this window is spent, so the
    /// following sends go at priority 5.
    public mutating func recordThrottled(now: Date, policy: BudgetPolicy) {
        self = rolled(to: now, policy: policy)
        let current = limit(now: now, policy: policy)
        let shrunk = max(policy.minimumPerHour, Int((Double(current) * policy.shrinkFactor).rounded(.down)))
        shrunkLimit = min(shrunk, policy.profile.immediatePerHour)
        lastThrottledAt = now
        throttleHits += 1
        immediateSent = max(immediateSent, current)
    }
}
