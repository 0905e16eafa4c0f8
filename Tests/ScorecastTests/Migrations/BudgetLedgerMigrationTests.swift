import DeliveryEngine
import Foundation
import Migrations
import Postgres
import ScorecastCore
import Testing
import TestSupport

/// The upgrade to one budget ledger keeps what the budget still needs from the tables it
/// replaces: the last hour's priority-10 sends (and downgrades, until a later upgrade leaves
/// those to the delivery records), and each channel's latest 429 with its lowered limit and its
/// bar on priority 10.
@Suite struct BudgetLedgerMigrationTests {
    @Test func theLedgerTakesOverTheLastHourAndTheLatestThrottle() async throws {
        let pool = try await TestDatabase.shared().makePool()
        do {
            let files = try SchemaFolder.read(DeliveryDatabase.schemaFolder)
            try await Migrator(files: files.filter { $0.number < 60 }, logger: TestDatabase.logger).migrate(pool)
            let database = DeliveryDatabase(pool: pool)
            let app = try await database.addApp()
            let channel = try await database.addChannel(appID: app)
            let quiet = try await database.addChannel(appID: app)
            // Whole seconds, as Postgres keeps them exactly.
            let now = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down))
            let throttledAt = now.addingTimeInterval(-900)
            try await pool.execute("""
                INSERT INTO channel_priority_sends (channel_id, sent_at)
                VALUES (\(channel), \(now.addingTimeInterval(-1800))), (\(channel), \(now.addingTimeInterval(-600)))
                """)
            try await pool.execute("""
                INSERT INTO channel_budget (channel_id, window_start, high_priority_sent, downgraded, throttled, budget_limit,
                                            shrunk_limit, last_throttled_at)
                VALUES (\(channel), \(now.addingTimeInterval(-7200)), 4, 0, 1, 6, 6, \(now.addingTimeInterval(-7000))),
                       (\(channel), \(now.addingTimeInterval(-3000)), 2, 1, 1, 3, 3, \(throttledAt)),
                       (\(quiet), \(now.addingTimeInterval(-3000)), 0, 0, 0, 12, NULL, NULL)
                """)
            try await database.enqueue(channelID: channel, payload: [1], timestamp: 1)
            try await pool.execute("UPDATE outbox SET throttled_until = \(throttledAt.addingTimeInterval(45)) WHERE channel_id = \(channel)")
            try await pool.execute("""
                INSERT INTO deliveries (channel_id, app_id, event_ids, outbox_version, requested_priority, priority, downgraded,
                                        attempt, outcome, sent_at)
                VALUES (\(channel), \(app), '{1}', 1, 10, 5, true, 1, 'sent', \(now.addingTimeInterval(-300))),
                       (\(channel), \(app), '{1}', 1, 10, 5, true, 1, 'sent', \(now.addingTimeInterval(-5400))),
                       (\(channel), \(app), '{1}', 1, 10, 5, true, 1, 'retry', \(now.addingTimeInterval(-200)))
                """)

            try await Migrator(files: files.filter { $0.number < 78 }, logger: TestDatabase.logger).migrate(pool)
            let kinds = try await pool.query("SELECT kind FROM budget_ledger WHERE channel_id = \(channel) ORDER BY at")
            #expect(try kinds.map { try $0.decode("kind", as: String.self) } == ["priority10", "throttled", "priority10", "downgraded"])

            // The ledger keeps only what spends or bars the budget; the downgrade stays in its
            // delivery record, which the statistics count.
            try await Migrator(files: files, logger: TestDatabase.logger).migrate(pool)
            #expect(try await database.ledger(channel) == [
                .priority10(at: now.addingTimeInterval(-1800)),
                .throttled(ChannelBudget.Throttle(at: throttledAt, limitAfter: 3, barredUntil: throttledAt.addingTimeInterval(45))),
                .priority10(at: now.addingTimeInterval(-600)),
            ])
            let downgrades = try await pool.query("SELECT count(*) AS n FROM deliveries WHERE downgraded AND outcome = 'sent'")
            #expect(try downgrades[0].decode("n", as: Int64.self) == 2)
            #expect(try await database.ledger(quiet).isEmpty)
            let gone = try await pool.query("""
                SELECT to_regclass('channel_budget') IS NULL AND to_regclass('channel_priority_sends') IS NULL AS gone
                """)[0]
            #expect(try gone.decode("gone", as: Bool.self))
        } catch {
            await pool.close()
            throw error
        }
        await pool.close()
    }
}
