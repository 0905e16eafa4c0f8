import DeliveryEngine
import Foundation
import Postgres
import ScorecastCore

/// The channels' budget ledger (`budget_ledger`) as every reader sees it: the claim (sending),
/// the statistics and dashboard, and `/metrics` read a channel's entries through these
/// fragments into one ``ChannelBudget``, which decides everything; the completion appends the
/// entries that type returned (``CompletionColumn``). Times are bound as parameters, never
/// taken from the database's clock. Each read looks up one kind of entry by the index on
/// channel, kind and time, so a channel's downgrades (one per alert once its budget is spent)
/// cost sending nothing.
package enum BudgetLedger {
    /// `LEFT JOIN LATERAL`s bringing what sending needs of the ledger of the channel `channelID`
    /// (an SQL expression of the enclosing query), as the columns of ``columns``: its
    /// priority-10 sends and 429s of the window ending at `now`, and its latest 429 still
    /// remembered then.
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

    /// A `LEFT JOIN LATERAL` bringing, for the statistics, how many sends of the channel
    /// `channelID` were downgraded in the window ending at `now`, as the column of
    /// ``downgradesColumn``, read by ``downgrades(_:)``.
    package static func downgradesJoin(channelID: SQL, now: Date, policy: BudgetPolicy) -> SQL {
        """
        LEFT JOIN LATERAL (
            SELECT count(*) AS downgrades
            FROM budget_ledger l
            WHERE l.channel_id = \(channelID) AND l.kind = 'downgraded' AND l.at > \(ChannelBudget.windowStart(endingAt: now, policy: policy))
        ) budget_downgrades ON true
        """
    }

    /// The select list that ``downgradesJoin(channelID:now:policy:)`` provides.
    package static let downgradesColumn: SQL = "budget_downgrades.downgrades AS budget_downgrades"

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

    /// The window's downgraded sends of a row that selected ``downgradesColumn``.
    package static func downgrades(_ row: PostgresRow) throws -> Int {
        Int(try row.decode("budget_downgrades", as: Int64.self))
    }
}
