import Foundation
import ScorecastCore

/// What the budget duty writes to `channel_budget`, decided from each channel's latest window
/// row and the time. Pure: the hour windows, shrinking and recovery are ScorecastCore's
/// `ChannelBudget`, the same rules the workers apply when they send.
///
/// - A channel that was busy in the window just closed (or whose limit is still lowered after
///   a 429) gets a row for the new window with zero counts and the limit in force now, so the
///   counts of every hour stay apart and the dashboards see the new window at once.
/// - A row of the current window whose stored limit differs from the limit in force now (a
///   lowered limit recovering hour by hour, or the app's budget changed) gets the new limit.
///
/// Idle channels at their full limit get nothing: the workers start them from a fresh budget.
package enum BudgetWindowPlan {
    /// A channel's latest `channel_budget` row and its app's hourly budget.
    package struct Row: Sendable, Hashable {
        /// The channel.
        package var channelID: Int64
        /// The row's window.
        package var windowStart: Date
        /// Priority-10 sends counted in it.
        package var highPrioritySent: Int
        /// Downgrades counted in it.
        package var downgraded: Int
        /// 429 answers counted in it.
        package var throttled: Int
        /// The limit stored for it.
        package var budgetLimit: Int
        /// The lowered limit after the last 429, if not yet recovered.
        package var shrunkLimit: Int?
        /// When the last 429 came.
        package var lastThrottledAt: Date?
        /// The app's priority-10 budget per hour (its own or its profile's).
        package var perHour: Int

        /// Creates a row.
        package init(
            channelID: Int64, windowStart: Date, highPrioritySent: Int = 0, downgraded: Int = 0, throttled: Int = 0,
            budgetLimit: Int, shrunkLimit: Int? = nil, lastThrottledAt: Date? = nil, perHour: Int
        ) {
            self.channelID = channelID
            self.windowStart = windowStart
            self.highPrioritySent = highPrioritySent
            self.downgraded = downgraded
            self.throttled = throttled
            self.budgetLimit = budgetLimit
            self.shrunkLimit = shrunkLimit
            self.lastThrottledAt = lastThrottledAt
            self.perHour = perHour
        }
    }

    /// One write.
    package enum Write: Sendable, Hashable {
        /// Insert a zero-count row for `windowStart` (unless a worker already made one).
        case open(channelID: Int64, windowStart: Date, limit: Int, shrunkLimit: Int?, lastThrottledAt: Date?)
        /// Change the current row's limit from `from` to `to` (unless a worker changed it meanwhile).
        case setLimit(channelID: Int64, windowStart: Date, from: Int, to: Int, shrunkLimit: Int?, lastThrottledAt: Date?)
    }

    /// The writes for `rows` at `now`, in channel order. `base` supplies the window length,
    /// shrink and recovery rules; each row's `perHour` its profile.
    package static func writes(for rows: [Row], now: Date, base: BudgetPolicy) -> [Write] {
        var writes: [Write] = []
        for row in rows.sorted(by: { $0.channelID < $1.channelID }) {
            var policy = base
            policy.profile = BudgetProfile(name: "app", immediatePerHour: row.perHour)
            let stored = ScorecastCore.ChannelBudget(
                windowStart: row.windowStart, immediateSent: row.highPrioritySent, downgraded: row.downgraded,
                throttleHits: row.throttled, shrunkLimit: row.shrunkLimit, lastThrottledAt: row.lastThrottledAt)
            let rolled = stored.rolled(to: now, policy: policy)
            let limit = rolled.limit(now: now, policy: policy)
            if rolled.windowStart > row.windowStart {
                let previousWindow = rolled.windowStart.addingTimeInterval(-policy.windowSeconds)
                let busyLastWindow = row.windowStart >= previousWindow
                    && (row.highPrioritySent > 0 || row.downgraded > 0 || row.throttled > 0)
                if busyLastWindow || rolled.shrunkLimit != nil {
                    writes.append(.open(
                        channelID: row.channelID, windowStart: rolled.windowStart, limit: limit,
                        shrunkLimit: rolled.shrunkLimit, lastThrottledAt: rolled.lastThrottledAt))
                }
            } else if limit != row.budgetLimit {
                let shrunk = limit >= policy.profile.immediatePerHour ? nil : row.shrunkLimit
                writes.append(.setLimit(
                    channelID: row.channelID, windowStart: row.windowStart, from: row.budgetLimit, to: limit,
                    shrunkLimit: shrunk, lastThrottledAt: row.lastThrottledAt))
            }
        }
        return writes
    }
}
