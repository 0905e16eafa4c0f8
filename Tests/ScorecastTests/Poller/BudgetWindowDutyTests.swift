import Foundation
import Postgres
import ScorecastCore
import Testing
@testable import Scorecast

/// Budget windows rolled and restored against a real schema, through hours of manual time.
@Suite struct BudgetWindowDutyTests {
    struct Window: Equatable {
        var start: Date
        var sent: Int
        var limit: Int
        var shrunk: Int?
    }

    func windows(_ db: PollerDatabase, _ channel: Int64) async throws -> [Window] {
        try await db.pool.query("""
            SELECT window_start, high_priority_sent, budget_limit, shrunk_limit FROM channel_budget
            WHERE channel_id = \(channel) ORDER BY window_start
            """).map {
            Window(start: try $0.decode("window_start"), sent: try $0.decode("high_priority_sent"),
                   limit: try $0.decode("budget_limit"), shrunk: try $0.decode("shrunk_limit", as: Int?.self))
        }
    }

    @Test func windowsRollEachHourAndALoweredLimitGrowsBack() async throws {
        try await PollerDatabase.with { db in
            let app = try await db.addApp()
            let channel = try await db.addChannel(appID: app)
            let idle = try await db.addChannel(appID: app)
            let clock = ManualServiceClock(pollerTestNow)                       // 12:30:20
            let hour = clock.now().flooring(toMultipleOf: 3600)                // 12:00
            let throttledAt = hour.addingTimeInterval(600)                     // a 429 at 12:10 halved 12 to 6
            try await db.pool.execute("""
                INSERT INTO channel_budget (channel_id, window_start, high_priority_sent, downgraded, throttled, budget_limit, shrunk_limit, last_throttled_at)
                VALUES (\(channel), \(hour), 6, 2, 1, 6, 6, \(throttledAt)),
                       (\(idle), \(hour.addingTimeInterval(-3600)), 0, 0, 0, 12, NULL, NULL)
                """)
            let duty = BudgetWindowDuty(pool: db.pool, interval: .seconds(60), standardPerHour: 12, frequentPerHour: 60)

            var report = try await duty.run(at: clock.now())
            #expect(report["windows_opened"] == 0 && report["limits_changed"] == 0)
            #expect(report["hour_priority10"] == 6 && report["hour_downgraded"] == 2 && report["hour_throttled"] == 1)
            #expect(report["hour_exhausted_channels"] == 1)

            clock.advance(by: .seconds(45 * 60))                              // 13:15:20: new window, 1 h after the 429
            report = try await duty.run(at: clock.now())
            #expect(report["windows_opened"] == 1)
            #expect(try await windows(db, channel) == [
                Window(start: hour, sent: 6, limit: 6, shrunk: 6),            // 12:00 kept as it was
                Window(start: hour.addingTimeInterval(3600), sent: 0, limit: 8, shrunk: 6),
            ])
            #expect(try await windows(db, idle).count == 1)                   // idle at full budget: no new row

            clock.advance(by: .seconds(50 * 60))                              // 14:05:20: still one full hour
            _ = try await duty.run(at: clock.now())
            let twoPM = hour.addingTimeInterval(7200)
            #expect(try await windows(db, channel).last == Window(start: twoPM, sent: 0, limit: 8, shrunk: 6))

            // A worker sends in the 14:00 window; at 14:10 the second hour is full: the limit is
            // raised in place and the worker's count stays.
            try await db.pool.execute("UPDATE channel_budget SET high_priority_sent = 4 WHERE channel_id = \(channel) AND window_start = \(twoPM)")
            clock.advance(by: .seconds(10 * 60))                              // 14:15:20
            report = try await duty.run(at: clock.now())
            #expect(report["limits_changed"] == 1 && report["windows_opened"] == 0)
            #expect(try await windows(db, channel).last == Window(start: twoPM, sent: 4, limit: 10, shrunk: 6))

            clock.advance(by: .seconds(3600))                                 // 15:15:20: three hours: back to 12
            _ = try await duty.run(at: clock.now())
            #expect(try await windows(db, channel).last == Window(start: hour.addingTimeInterval(3 * 3600), sent: 0, limit: 12, shrunk: nil))
            #expect(try await windows(db, channel).count == 4)
        }
    }
}
