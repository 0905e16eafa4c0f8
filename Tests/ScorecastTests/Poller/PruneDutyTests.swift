import Clocks
import Foundation
@testable import Server
import Testing

/// Pruning past the retention against a real schema.
@Suite struct PruneDutyTests {
    @Test func rowsPastTheRetentionGoInBatchesAndNewerOnesStay() async throws {
        try await PollerDatabase.with { db in
            let app = try await db.addApp()
            let channel = try await db.addChannel(appID: app)
            try await db.addGame("g1")
            let now = pollerTestNow
            let old = now.addingTimeInterval(-3 * 86_400 - 60)
            let recent = now.addingTimeInterval(-3 * 86_400 + 60)
            try await db.insert((0..<25).map { DeliverySpec(channelID: channel, appID: app, sentAt: old.addingTimeInterval(Double(-$0))) }
                + (0..<3).map { DeliverySpec(channelID: channel, appID: app, sentAt: recent.addingTimeInterval(Double($0))) })
            try await db.insertEvents(game: "g1", at: [(old, "accepted"), (old, "stale"), (recent, "accepted")])
            try await db.pool.execute("""
                INSERT INTO stats_minute (minute, app_id, sent) VALUES (\(old.minuteStart), \(app), 1), (\(recent.minuteStart), \(app), 1)
                """)
            try await db.pool.execute("""
                INSERT INTO budget_ledger (channel_id, at, kind) VALUES
                (\(channel), \(old), 'priority10'), (\(channel), \(now.addingTimeInterval(-86_400 * 1.5)), 'priority10')
                """)
            let duty = PruneDuty(pool: db.pool, interval: .seconds(600), plan: PrunePlan(retentionDays: 3, batchSize: 10, maxBatches: 2))
            var report = try await duty.run(at: now)
            #expect(report["deliveries"] == 20)                         // two batches of 10, then the round stops
            #expect(report["events"] == 2)
            #expect(report["stats_minute"] == 1)
            #expect(report["budget_ledger"] == 1)                      // the 1.5-day-old entry stays
            report = try await duty.run(at: now)
            #expect(report["deliveries"] == 5)
            #expect(try await db.count("SELECT count(*)::int FROM deliveries") == 3)
            #expect(try await db.count("SELECT count(*)::int FROM events") == 1)
            #expect(try await db.count("SELECT count(*)::int FROM budget_ledger") == 1)
            #expect(try await duty.run(at: now).counts.values.allSatisfy { $0 == 0 })
        }
    }

    @Test func activityPrioritySendsGoOnceTheBudgetHourIsOverWhateverTheRetention() async throws {
        try await PollerDatabase.with { db in
            let app = try await db.addApp()
            try await db.addGame("g1")
            let device = try #require(try await db.pool.query("""
                INSERT INTO devices (app_id, install_id, os_version, supports_channels) VALUES (\(app), 'install-1', '17.4', false)
                RETURNING id
                """).first).decode("id", as: Int64.self)
            let token = try #require(try await db.pool.query("""
                INSERT INTO activity_tokens (device_id, game_id, token) VALUES (\(device), 'g1', \(String(repeating: "ab", count: 32)))
                RETURNING id
                """).first).decode("id", as: Int64.self)
            let now = pollerTestNow
            // Past the rolling hour: 2 hours, and one second past the hour. Within it: one second
            // short of the hour, and ten seconds ago.
            let sends = [-7_200.0, -3_601, -3_599, -10].map { now.addingTimeInterval($0) }
            for sentAt in sends {
                try await db.pool.execute("INSERT INTO activity_priority_sends (activity_token_id, sent_at) VALUES (\(token), \(sentAt))")
            }
            let duty = PruneDuty(pool: db.pool, interval: .seconds(600), plan: PrunePlan(retentionDays: 3, batchSize: 10, maxBatches: 2))
            #expect(try await duty.run(at: now)["activity_priority_sends"] == 2)
            let kept = try await db.pool.query("SELECT sent_at FROM activity_priority_sends ORDER BY sent_at").map { try $0.decode("sent_at", as: Date.self) }
            #expect(kept == Array(sends.suffix(2)))
            #expect(try await duty.run(at: now)["activity_priority_sends"] == 0)
        }
    }
}
