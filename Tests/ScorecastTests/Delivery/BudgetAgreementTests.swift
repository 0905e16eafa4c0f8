import APNsSimulator
import Clocks
import Delivery
import DeliveryEngine
import Foundation
import ScorecastCore
import Statistics
import TestSupport
import Testing

/// One budget ledger for sending and for what the operator reads: the worker pool and the
/// statistics on one injected clock, real Postgres, the simulator over HTTP/2 + TLS as witness
/// of the priority each update went at. Time moves only when the test moves it.
@Suite struct BudgetAgreementTests {
    /// A clock hour two days ahead: every time the database itself writes (due times, backoffs)
    /// is then in the injected clock's past, and the hour boundary is the test's to cross.
    static func comingHour() -> Date {
        let later = Date().addingTimeInterval(2 * 86_400)
        return Date(timeIntervalSince1970: (later.timeIntervalSince1970 / 3600).rounded(.up) * 3600)
    }

    /// The channel's budget as `/v1/channels/{id}/stats` (and the dashboard) shows it at `now`,
    /// under the profiles the workers send with.
    static func shown(_ harness: DeliveryHarness, _ channel: String, at now: Date, _ settings: WorkerSettings) async throws -> ChannelBudgetStatus {
        let query = StatsQuery(pool: harness.pool, budgetProfiles: settings.budgetProfiles, channelLimit: 10)
        return try #require(try await query.channel(channel, window: .default, now: now)).budget
    }

    /// Queues an alert at priority 10 and waits until APNs answered it; returns the priority of
    /// the send that APNs accepted.
    static func sendAlert(_ harness: DeliveryHarness, _ channel: (id: Int64, apnsID: String), score: Int) async throws -> String? {
        try await harness.enqueue(channelID: channel.id, score: score, timestamp: 1_750_000_000 + Int64(score))
        try await eventually("update \(score) is sent") { try await harness.outboxCount() == 0 }
        return harness.broadcasts(to: channel.apnsID).last { $0.status == 200 }?.header("apns-priority")
    }

    /// Two priority-10 sends an hour (no final reserve). Two goals just before the clock hour
    /// spend it; after the clock hour the statistics still show it spent and the next goal goes
    /// at 5; once the first goal is an hour old, both show one slot and the goal goes at 10.
    @Test func statisticsAndSendingCountTheSameRollingHourAcrossTheClockHour() async throws {
        try await DeliveryHarness.with { harness in
            try await harness.pool.execute("UPDATE apps SET budget_per_hour = 2 WHERE id = \(harness.appID)")
            let channel = try await harness.createChannel()
            var settings = harness.settings(workers: 1)
            settings.budgetPolicy = BudgetPolicy(finalReserve: 0)
            let hour = Self.comingHour()
            let clock = ManualServiceClock(hour.addingTimeInterval(-120))
            let workers = harness.makePool(settings, clock: clock)
            // (seconds from the clock hour, priority the goal should go at, priority-10 sends shown before it)
            let steps: [(Double, String, Int)] = [(-120, "10", 0), (-60, "10", 1), (60, "5", 2), (1200, "5", 2), (3481, "10", 1)]
            try await harness.running(workers) {
                for (score, (offset, priority, usedBefore)) in steps.enumerated() {
                    clock.advance(by: .seconds(hour.addingTimeInterval(offset).timeIntervalSince(clock.now())))
                    let before = try await Self.shown(harness, channel.apnsID, at: clock.now(), settings)
                    #expect(before.priority10Used == usedBefore && before.priority10Limit == 2, "shown at \(offset)s: \(before)")
                    #expect(before.hourStart == clock.now().addingTimeInterval(-3600), "the hour ending now, not the clock hour")
                    let sent = try await Self.sendAlert(harness, channel, score: score + 1)
                    #expect(sent == priority, "goal at \(offset)s")
                    #expect((sent == "10") == (before.remaining > 0), "sending agrees with what was shown at \(offset)s")
                }
            }
            let after = try await Self.shown(harness, channel.apnsID, at: clock.now(), settings)
            #expect(after.priority10Used == 2 && after.downgrades == 2, "\(after)")
        }
    }

    /// A 429 five minutes into a clock hour, Retry-After an hour, capped at 60 s
    /// (`SCORECAST_RETRY_AFTER_MAX_SECONDS`'s default): priority 10 is barred for those 60 s,
    /// shown as such, and goes again at 61 s, not at the clock hour's end.
    @Test func aThrottleBarsPriorityTenForItsCappedRetryAfterNotTheClockHour() async throws {
        try await DeliveryHarness.with(configure: { $0.retryAfter = .seconds(3600) }) { harness in
            let channel = try await harness.createChannel()
            var settings = harness.settings(workers: 1, standardBudget: 12)
            settings.retryPolicy.maximumRetryAfter = 60
            let throttledAt = Self.comingHour().addingTimeInterval(300)
            let clock = ManualServiceClock(throttledAt)
            let workers = harness.makePool(settings, clock: clock)
            try await harness.running(workers) {
                try harness.simulator.setBudget(perHour: 0)
                try await harness.enqueue(channelID: channel.id, score: 1, timestamp: 1_750_000_001)
                try await eventually("the 429 is written back") { try await harness.database.deliveries(channel.id).count == 1 }
                try harness.simulator.setBudget(perHour: nil)
                // The retry waits its backoff (at most 0.2 s here) on the workers' clock.
                clock.advance(by: .seconds(1))
                try await eventually("the retry is sent") { try await harness.outboxCount() == 0 }
                #expect(harness.broadcasts(to: channel.apnsID).map { $0.header("apns-priority") } == ["10", "5"], "the retry goes at 5")
                #expect(harness.broadcasts(to: channel.apnsID).map(\.status) == [429, 200])

                let barred = try await Self.shown(harness, channel.apnsID, at: clock.now(), settings)
                #expect(barred.priority10BarredUntil == throttledAt.addingTimeInterval(60))
                #expect(barred.priority10Limit == 6 && barred.throttled == 1 && barred.downgrades == 1, "\(barred)")

                clock.advance(by: .seconds(58))
                #expect(try await Self.sendAlert(harness, channel, score: 2) == "5", "still barred at 59 s")
                clock.advance(by: .seconds(2))
                #expect(try await Self.shown(harness, channel.apnsID, at: clock.now(), settings).priority10BarredUntil == nil)
                #expect(try await Self.sendAlert(harness, channel, score: 3) == "10", "free again at 61 s")
            }
            let shown = try await Self.shown(harness, channel.apnsID, at: clock.now(), settings)
            #expect(shown.priority10Used == 1 && shown.priority10Limit == 6 && shown.downgrades == 2, "\(shown)")
        }
    }
}
