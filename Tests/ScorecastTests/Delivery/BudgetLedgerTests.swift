import Delivery
import DeliveryEngine
import Foundation
import Postgres
import TestSupport
import Testing

/// What the claim and the statistics read of a channel's budget ledger: each kind of entry of its
/// window, and its latest 429, found by kind without reading the other entries.
@Suite struct BudgetLedgerTests {
    @Test func aChannelsLedgerIsReadByKindWithoutItsOlderSends() async throws {
        try await DeliveryDatabase.with { database in
            let app = try await database.addApp()
            let channel = try await database.addChannel(appID: app)
            let now = Date(timeIntervalSince1970: 1_800_000_000)
            let sends = [-3000.0, -2000, -1000].map { now.addingTimeInterval($0) }
            for at in sends {
                try await database.pool.execute("INSERT INTO budget_ledger (channel_id, at, kind) VALUES (\(channel), \(at), 'priority10')")
            }
            // A 429 of yesterday, remembered for its lowered limit, and the 500 sends of the
            // hours since, which left the window.
            let throttledAt = now.addingTimeInterval(-30 * 3600)
            try await database.pool.execute("""
                INSERT INTO budget_ledger (channel_id, at, kind, limit_after, barred_until)
                VALUES (\(channel), \(throttledAt), 'throttled', 4, \(throttledAt.addingTimeInterval(60)))
                """)
            try await database.pool.execute("""
                INSERT INTO budget_ledger (channel_id, at, kind)
                SELECT \(channel), \(now)::timestamptz - make_interval(secs => 3600 + 200 * n), 'priority10' FROM generate_series(1, 500) n
                """)
            let read: SQL = """
                SELECT \(BudgetLedger.columns) FROM channels c
                \(BudgetLedger.joins(channelID: "c.id", now: now, policy: BudgetPolicy()))
                WHERE c.id = \(channel)
                """
            let budget = try BudgetLedger.budget(try #require(try await database.pool.query(read).first))
            #expect(budget == ChannelBudget(
                immediateSends: sends,
                lastThrottle: ChannelBudget.Throttle(at: throttledAt, limitAfter: 4, barredUntil: throttledAt.addingTimeInterval(60))))

            // The ledger rows the read touched: the window's three sends and the one 429.
            let plan = try #require(try await database.pool.query("EXPLAIN (ANALYZE, FORMAT JSON) " + read).first)
            let json = try JSONSerialization.jsonObject(with: Data(try plan.decode(0, as: String.self).utf8))
            #expect(Self.rowsRead(from: "budget_ledger", in: json) == 4)
        }
    }

    @Test func aDowngradedSendLeavesNoEntry() async throws {
        try await DeliveryDatabase.with { database in
            let app = try await database.addApp()
            let channel = try await database.addChannel(appID: app)
            await #expect(throws: PostgresError.self, "the ledger keeps sends that spend and 429s only") {
                try await database.pool.execute("INSERT INTO budget_ledger (channel_id, at, kind) VALUES (\(channel), now(), 'downgraded')")
            }
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
