import Delivery
import DeliveryEngine
import Foundation
import Postgres
import TestSupport
import Testing

/// What sending reads of a channel's budget ledger: its priority-10 sends and 429s, found by
/// kind, never its downgrades, which grow by one per alert once the budget is spent.
@Suite struct BudgetLedgerTests {
    @Test func sendingReadsThePriorityTenSendsOfTheWindowAndNoDowngrade() async throws {
        try await DeliveryDatabase.with { database in
            let app = try await database.addApp()
            let channel = try await database.addChannel(appID: app)
            let now = Date(timeIntervalSince1970: 1_800_000_000)
            let sends = [-3000.0, -2000, -1000].map { now.addingTimeInterval($0) }
            for at in sends + [now.addingTimeInterval(-4000)] {
                try await database.pool.execute("INSERT INTO budget_ledger (channel_id, at, kind) VALUES (\(channel), \(at), 'priority10')")
            }
            // A channel past its budget: every later alert went at 5 and left a downgrade.
            try await database.pool.execute("""
                INSERT INTO budget_ledger (channel_id, at, kind)
                SELECT \(channel), \(now)::timestamptz - make_interval(secs => n), 'downgraded' FROM generate_series(1, 500) n
                """)
            let policy = BudgetPolicy()
            let read: SQL = """
                SELECT \(BudgetLedger.columns) FROM channels c
                \(BudgetLedger.joins(channelID: "c.id", now: now, policy: policy))
                WHERE c.id = \(channel)
                """
            let budget = try BudgetLedger.budget(try #require(try await database.pool.query(read).first))
            #expect(budget == ChannelBudget(immediateSends: sends))

            // The ledger rows the read touched: the window's three sends, not the 500 downgrades.
            let plan = try #require(try await database.pool.query("EXPLAIN (ANALYZE, FORMAT JSON) " + read).first)
            let json = try JSONSerialization.jsonObject(with: Data(try plan.decode(0, as: String.self).utf8))
            #expect(Self.rowsRead(from: "budget_ledger", in: json) == 3)

            // The statistics still count the window's downgrades.
            let counted = try await database.pool.query("""
                SELECT \(BudgetLedger.downgradesColumn) FROM channels c
                \(BudgetLedger.downgradesJoin(channelID: "c.id", now: now, policy: policy))
                WHERE c.id = \(channel)
                """)
            #expect(try BudgetLedger.downgrades(try #require(counted.first)) == 500)
        }
    }

    /// The rows the plan's scans of `relation` returned, over all their loops.
    private static func rowsRead(from relation: String, in node: Any) -> Int {
        if let list = node as? [Any] { return list.reduce(0) { $0 + rowsRead(from: relation, in: $1) } }
        guard let object = node as? [String: Any] else { return 0 }
        var rows = 0
        if object["Relation Name"] as? String == relation {
            rows += ((object["Actual Rows"] as? Int) ?? 0) * ((object["Actual Loops"] as? Int) ?? 1)
        }
        for key in ["Plan", "Plans"] { if let child = object[key] { rows += rowsRead(from: relation, in: child) } }
        return rows
    }
}
