import Foundation
import Postgres
import ScorecastCore

/// Channels' priority-10 budgets in the current hour window, as the statistics API shows them.
///
/// Read from each channel's latest `channel_budget` row and brought to `now` with the workers'
/// own rules (ScorecastCore's `ChannelBudget`: hour windows, shrinking after 429, recovery), so
/// the limit shown is the one the next send will be held to. A channel without a recent row is
/// at its app's full budget with nothing used.
struct BudgetReader: Sendable {
    let pool: PostgresPool
    /// Priority-10 sends per hour for apps without frequent updates (and no budget of their own).
    let standardPerHour: Int
    /// The same for apps with frequent updates.
    let frequentPerHour: Int
    var policy = BudgetPolicy()

    /// Which channels to read.
    enum Selection: Sendable {
        /// Channels with a row in the current window (the only ones that can be near their limit).
        case activeThisHour(appID: Int64?)
        /// These channels, with or without rows.
        case channels([Int64])
    }

    /// The budgets of `selection` at `now`, closest to exhaustion first, at most `limit`.
    func budgets(_ selection: Selection, now: Date, limit: Int) async throws -> [ChannelBudgetStatus] {
        let window = ScorecastCore.ChannelBudget.windowStart(containing: now, policy: policy)
        let condition: SQL
        switch selection {
        case .activeThisHour(let appID):
            // Live channels only: a deleted or gone channel has no budget left to watch.
            condition = appID.map {
                "c.status IN ('active', 'retiring') AND c.id IN (SELECT channel_id FROM channel_budget WHERE window_start = \(window)) AND c.app_id = \($0)"
            } ?? "c.status IN ('active', 'retiring') AND c.id IN (SELECT channel_id FROM channel_budget WHERE window_start = \(window))"
        case .channels(let ids):
            condition = "c.id = ANY(\(ids))"
        }
        let rows = try await pool.query("""
            SELECT DISTINCT ON (c.id)
                   c.id, c.apns_channel_id, a.bundle_id,
                   (SELECT min(game_id) FROM channel_bindings WHERE channel_id = c.id) AS game,
                   COALESCE(a.budget_per_hour, CASE WHEN a.frequent_updates THEN \(frequentPerHour) ELSE \(standardPerHour) END) AS per_hour,
                   b.window_start, b.high_priority_sent, b.downgraded, b.throttled, b.shrunk_limit, b.last_throttled_at,
                   (SELECT count(*) FROM deliveries d
                    WHERE d.channel_id = c.id AND d.priority = 10 AND d.outcome = 'sent' AND d.sent_at >= \(window))::int AS accepted_10
            FROM channels c
            JOIN apps a ON a.id = c.app_id
            LEFT JOIN channel_budget b ON b.channel_id = c.id AND b.window_start >= \(now.addingTimeInterval(-BudgetWindowDuty.lookback))
            WHERE \(condition)
            ORDER BY c.id, b.window_start DESC NULLS LAST
            """)
        let budgets = try rows.map { row in
            Self.current(
                channel: try row.decode("apns_channel_id"), app: try row.decode("bundle_id"),
                game: try row.decode("game", as: String?.self), perHour: try row.decode("per_hour"),
                stored: try row.decode("window_start", as: Date?.self).map { start in
                    ScorecastCore.ChannelBudget(
                        windowStart: start, immediateSent: try row.decode("high_priority_sent"),
                        downgraded: try row.decode("downgraded"), throttleHits: try row.decode("throttled"),
                        shrunkLimit: try row.decode("shrunk_limit", as: Int?.self),
                        lastThrottledAt: try row.decode("last_throttled_at", as: Date?.self))
                },
                acceptedPriority10: try row.decode("accepted_10"),
                now: now, policy: policy)
        }
        return Array(ChannelBudgetStatus.closestToLimit(budgets).prefix(max(0, limit)))
    }

    /// A channel's budget at `now` from its latest stored state (nil: none). Pure.
    ///
    /// `acceptedPriority10` is the priority-10 sends APNs accepted this window (from
    /// `deliveries`): what `priority10Used` reports. The stored count is the workers' view and
    /// is raised to the limit after a 429 to spend the window, which is not a use.
    static func current(
        channel: String, app: String, game: String?, perHour: Int, stored: ScorecastCore.ChannelBudget?,
        acceptedPriority10: Int? = nil, now: Date, policy base: BudgetPolicy
    ) -> ChannelBudgetStatus {
        var policy = base
        policy.profile = BudgetProfile(name: "app", immediatePerHour: perHour)
        let state = (stored ?? .fresh(now: now, policy: policy)).rolled(to: now, policy: policy)
        return ChannelBudgetStatus(
            channel: channel, app: app, game: game, hourStart: state.windowStart,
            priority10Used: acceptedPriority10 ?? state.immediateSent, priority10Limit: state.limit(now: now, policy: policy),
            downgrades: state.downgraded, throttled: state.throttleHits)
    }
}
