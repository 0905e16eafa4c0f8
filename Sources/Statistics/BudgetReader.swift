import Delivery
import DeliveryEngine
import Foundation
import Postgres
import ScorecastCore

/// Channels' priority-10 budgets over the rolling hour ending now, as the statistics API, the
/// dashboard and `/metrics` show them.
///
/// Read from the channels' budget ledger with the claim's own fragments (``BudgetLedger``) and
/// judged by the workers' own type (ScorecastCore's `ChannelBudget`), under the same resolved
/// profile, so the figures shown are the ones the next send is held to. The window's downgrades
/// are counted from the delivery records (a downgraded send spends nothing, so the ledger has
/// no entry for it).
struct BudgetReader: Sendable {
    let pool: PostgresPool
    /// The built-in profiles every app's budget is resolved from.
    let profiles: BudgetProfiles
    /// The window, shrinking and recovery (the workers' default).
    var policy = BudgetPolicy()

    /// Which channels to read.
    enum Selection: Sendable {
        /// Live channels with a ledger entry in the window (the only ones that can be near
        /// their limit), of one app or all.
        case activeThisHour(appID: Int64?)
        /// These channels, with or without entries.
        case channels([Int64])
    }

    /// The budgets of `selection` at `now`, closest to exhaustion first, at most `limit`.
    func budgets(_ selection: Selection, now: Date, limit: Int) async throws -> [ChannelBudgetStatus] {
        let condition: SQL
        switch selection {
        case .activeThisHour(let appID):
            // Live channels only: a deleted or gone channel has no budget left to watch.
            let active = BudgetLedger.activeCondition(channelID: "c.id", now: now, policy: policy)
            condition = appID.map { "c.status IN ('active', 'retiring') AND \(active) AND c.app_id = \($0)" }
                ?? "c.status IN ('active', 'retiring') AND \(active)"
        case .channels(let ids):
            condition = "c.id = ANY(\(ids))"
        }
        let rows = try await pool.query("""
            SELECT c.id, c.apns_channel_id, a.bundle_id, a.budget_per_hour, a.frequent_updates,
                   (SELECT min(game_id) FROM channel_bindings WHERE channel_id = c.id) AS game,
                   \(BudgetLedger.columns), downgraded.sends AS downgrades
            FROM channels c
            JOIN apps a ON a.id = c.app_id
            \(BudgetLedger.joins(channelID: "c.id", now: now, policy: policy))
            LEFT JOIN LATERAL (
                SELECT count(*) AS sends FROM deliveries d
                WHERE d.channel_id = c.id AND d.downgraded AND d.outcome = 'sent'
                  AND d.sent_at > \(ChannelBudget.windowStart(endingAt: now, policy: policy))
            ) downgraded ON true
            WHERE \(condition)
            """)
        let budgets = try rows.map { row in
            let profile = profiles.profile(
                appBudget: try row.decode("budget_per_hour", as: Int?.self), frequentUpdates: try row.decode("frequent_updates"))
            return ChannelBudgetStatus(
                channel: try row.decode("apns_channel_id"), app: try row.decode("bundle_id"),
                game: try row.decode("game", as: String?.self),
                usage: try BudgetLedger.budget(row).usage(
                    now: now, policy: policy.with(profile), downgrades: Int(try row.decode("downgrades", as: Int64.self))))
        }
        return Array(ChannelBudgetStatus.closestToLimit(budgets).prefix(max(0, limit)))
    }
}
