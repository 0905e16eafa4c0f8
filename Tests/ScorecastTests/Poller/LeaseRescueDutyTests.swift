import Clocks
import Foundation
import PrometheusMetrics
@testable import Server
@testable import ServiceBase
import Testing

/// The rescue of expired leases against a real schema, time from a manual clock.
@Suite struct LeaseRescueDutyTests {
    @Test func expiredLeasesAreClearedAndCountedOthersAreLeftAlone() async throws {
        try await PollerDatabase.with { db in
            let clock = ManualServiceClock(pollerTestNow)
            let app = try await db.addApp()
            let otherApp = try await db.addApp("com.example.other")
            let now = clock.now()
            let expiredA = try await db.addChannel(appID: app)
            let expiredB = try await db.addChannel(appID: otherApp)
            let live = try await db.addChannel(appID: app)
            let unleased = try await db.addChannel(appID: app)
            try await db.addOutbox(channelID: expiredA, dueAt: now.addingTimeInterval(-60), leaseOwner: "w1", leaseExpiresAt: now.addingTimeInterval(-1))
            try await db.addOutbox(channelID: expiredB, dueAt: now.addingTimeInterval(-60), leaseOwner: "w2", leaseExpiresAt: now.addingTimeInterval(-30))
            try await db.addOutbox(channelID: live, dueAt: now.addingTimeInterval(-60), leaseOwner: "w3", leaseExpiresAt: now.addingTimeInterval(5))
            try await db.addOutbox(channelID: unleased, dueAt: now.addingTimeInterval(-60))

            let registry = MetricsRegistry()
            let metrics = try ScorecastMetrics(registry: registry)
            let duty = LeaseRescueDuty(pool: db.pool, interval: .seconds(10), metrics: metrics)
            let report = try await duty.run(at: clock.now())
            #expect(report["rescued"] == 2)
            #expect(try await db.count("SELECT count(*)::int FROM outbox WHERE lease_owner IS NULL") == 3)
            #expect(try await db.count("SELECT count(*)::int FROM outbox WHERE lease_owner = 'w3'") == 1)
            #expect(try await db.count("SELECT coalesce(sum(count), 0)::int FROM stats_minute_rescues WHERE minute = \(now.minuteStart)") == 2)
            #expect(metrics.retried.value(AppLabels(app: "com.example.scores")) == 1)
            #expect(metrics.retried.value(AppLabels(app: "com.example.other")) == 1)

            // Nothing more until the live lease expires; then it is rescued and added to the minute.
            #expect(try await duty.run(at: clock.now())["rescued"] == 0)
            clock.advance(by: .seconds(6))
            #expect(try await duty.run(at: clock.now())["rescued"] == 1)
            #expect(try await db.count("SELECT coalesce(sum(count), 0)::int FROM stats_minute_rescues") == 3)
        }
    }

    @Test func aRowLockedByACompletionInProgressIsSkipped() async throws {
        try await PollerDatabase.with { db in
            let app = try await db.addApp()
            let channel = try await db.addChannel(appID: app)
            let now = pollerTestNow
            try await db.addOutbox(channelID: channel, dueAt: now, leaseOwner: "w1", leaseExpiresAt: now.addingTimeInterval(-5))
            let duty = LeaseRescueDuty(pool: db.pool, interval: .seconds(10))
            try await db.pool.withTransaction { connection in
                _ = try await connection.query("SELECT 1 FROM outbox WHERE channel_id = \(channel) FOR UPDATE")
                #expect(try await duty.run(at: now)["rescued"] == 0)
            }
            #expect(try await duty.run(at: now)["rescued"] == 1)
        }
    }
}
