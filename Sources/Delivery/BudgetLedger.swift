import DeliveryEngine
import Foundation
import Postgres
import ScorecastCore

/// The channels' budget ledger (`budget_ledger`) as every reader sees it: the claim (sending),
/// the statistics and dashboard, and `/metrics` read a channel's entries through these
/// fragments into one ``ChannelBudget``, which decides everything; the completion appends the
/// entries that type returned (``CompletionColumn``). Times are bound as parameters, never
/// taken from the database's clock. Each read looks up one kind of entry by the index on
/// channel, kind and time, so a channel's latest 429 is found without reading its sends of the
/// two days the ledger remembers it.
package enum BudgetLedger {
    /// `LEFT JOIN LATERAL`s bringing the ledger of the channel `channelID` (an SQL expression of
    /// the enclosing query) as the columns of ``columns``: its priority-10 sends and 429s of the
    /// window ending at `now`, and its latest 429 still remembered then.
    package static func joins(channelID: SQL, now: Date, policy: BudgetPolicy) -> SQL {
        let windowStart = ChannelBudget.windowStart(endingAt: now, policy: policy)
        let memoryStart = ChannelBudget.memoryStart(endingAt: now, policy: policy)
        return """
            LEFT JOIN LATERAL (
                SELECT COALESCE(array_agg(l.at ORDER BY l.at), '{}') AS sends
                FROM budget_ledger l
                WHERE l.channel_id = \(channelID) AND l.kind = 'priority10' AND l.at > \(windowStart)
            ) budget_sends ON true
            LEFT JOIN LATERAL (
                SELECT COALESCE(array_agg(l.at ORDER BY l.at), '{}') AS throttles
                FROM budget_ledger l
                WHERE l.channel_id = \(channelID) AND l.kind = 'throttled' AND l.at > \(windowStart)
            ) budget_throttles ON true
            LEFT JOIN LATERAL (
                SELECT l.at, l.limit_after, l.barred_until
                FROM budget_ledger l
                WHERE l.channel_id = \(channelID) AND l.kind = 'throttled' AND l.at > \(memoryStart)
                ORDER BY l.at DESC
                LIMIT 1
            ) budget_throttle ON true
            """
    }

    /// The select list that ``joins(channelID:now:policy:)`` provides, read by ``budget(_:)``.
    package static let columns: SQL = """
        budget_sends.sends AS budget_sends, budget_throttles.throttles AS budget_throttles,
        budget_throttle.at AS budget_throttled_at, budget_throttle.limit_after AS budget_limit_after,
        budget_throttle.barred_until AS budget_barred_until
        """

    /// The channels with an entry in the window ending at `now` (the only ones that can be
    /// near their limit), as an SQL condition on `channelID`.
    package static func activeCondition(channelID: SQL, now: Date, policy: BudgetPolicy) -> SQL {
        "\(channelID) IN (SELECT channel_id FROM budget_ledger WHERE at > \(ChannelBudget.windowStart(endingAt: now, policy: policy)))"
    }

    /// The budget state of a row that selected ``columns``.
    package static func budget(_ row: PostgresRow) throws -> ChannelBudget {
        var throttle: ChannelBudget.Throttle?
        if let at = try row.decode("budget_throttled_at", as: Date?.self) {
            throttle = ChannelBudget.Throttle(
                at: at, limitAfter: try row.decode("budget_limit_after"), barredUntil: try row.decode("budget_barred_until"))
        }
        return ChannelBudget(
            immediateSends: try row.decode("budget_sends"), throttles: try row.decode("budget_throttles"), lastThrottle: throttle)
    }
}
