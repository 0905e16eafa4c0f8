import Foundation
import ScorecastCore
import Testing
@testable import Scorecast

/// The poller's pure decisions, driven through time without I/O.
@Suite struct PollerDecisionTests {
    let t0 = pollerTestNow

    // MARK: - Schedule

    @Test func dutiesAreDueAtOnceThenEveryInterval() {
        var schedule = DutySchedule(intervals: ["a": .seconds(10), "b": .seconds(60)])
        #expect(schedule.due(at: t0) == ["a", "b"])
        #expect(schedule.nextWake == .distantPast)
        schedule.ran("a", startedAt: t0)
        schedule.ran("b", startedAt: t0)
        #expect(schedule.due(at: t0.addingTimeInterval(9.9)).isEmpty)
        #expect(schedule.nextWake == t0.addingTimeInterval(10))
        #expect(schedule.due(at: t0.addingTimeInterval(10)) == ["a"])
        schedule.ran("a", startedAt: t0.addingTimeInterval(10))
        #expect(schedule.due(at: t0.addingTimeInterval(60)) == ["a", "b"])
        schedule.reset()
        #expect(schedule.due(at: t0) == ["a", "b"])
    }

    // MARK: - Budget windows

    func row(_ channel: Int64, window: Date, sent: Int = 0, limit: Int = 12, shrunk: Int? = nil, throttledAt: Date? = nil, perHour: Int = 12) -> BudgetWindowPlan.Row {
        BudgetWindowPlan.Row(
            channelID: channel, windowStart: window, highPrioritySent: sent, throttled: throttledAt == nil ? 0 : 1,
            budgetLimit: limit, shrunkLimit: shrunk, lastThrottledAt: throttledAt, perHour: perHour)
    }

    @Test func aBusyChannelGetsTheNewHourWindowAndAnIdleOneDoesNot() {
        let hour = t0.flooring(toMultipleOf: 3600)             // 12:00
        let previous = hour.addingTimeInterval(-3600)           // 11:00
        let rows = [
            row(1, window: previous, sent: 5),                  // busy last hour: new window
            row(2, window: previous),                           // untouched last hour: nothing
            row(3, window: previous.addingTimeInterval(-3600), sent: 9), // busy two hours ago: idle since
            row(4, window: hour, sent: 3),                      // already in the current window: nothing
        ]
        let writes = BudgetWindowPlan.writes(for: rows, now: t0, base: BudgetPolicy())
        #expect(writes == [.open(channelID: 1, windowStart: hour, limit: 12, shrunkLimit: nil, lastThrottledAt: nil)])
    }

    @Test func aLoweredLimitRecoversHourByHourAndIsCarriedIntoNewWindows() {
        let hour = t0.flooring(toMultipleOf: 3600)
        let throttledAt = hour.addingTimeInterval(-3 * 3600 + 60)  // 09:01, shrunk to 6
        // Busy in the 11:00 window at 8; at 12:30 three full hours since the 429, +2 each:
        // 6 + 6 = 12, the profile's, so the new window opens at 12 with the lowered limit forgotten.
        let busy = row(1, window: hour.addingTimeInterval(-3600), sent: 8, limit: 8, shrunk: 6, throttledAt: throttledAt)
        #expect(BudgetWindowPlan.writes(for: [busy], now: t0, base: BudgetPolicy())
            == [.open(channelID: 1, windowStart: hour, limit: 12, shrunkLimit: nil, lastThrottledAt: throttledAt)])
        // The same channel idle since its 09:00 window has recovered too: nothing to write.
        let idle = row(1, window: throttledAt.flooring(toMultipleOf: 3600), sent: 6, limit: 6, shrunk: 6, throttledAt: throttledAt)
        #expect(BudgetWindowPlan.writes(for: [idle], now: t0, base: BudgetPolicy()).isEmpty)

        // Throttled at 11:50 to 3; at 12:30 not a full hour yet: the new window keeps 3.
        let recent = hour.addingTimeInterval(-600)
        let lowered = row(2, window: hour.addingTimeInterval(-3600), sent: 3, limit: 3, shrunk: 3, throttledAt: recent)
        #expect(BudgetWindowPlan.writes(for: [lowered], now: t0, base: BudgetPolicy())
            == [.open(channelID: 2, windowStart: hour, limit: 3, shrunkLimit: 3, lastThrottledAt: recent)])

        // The current window's row at 3, one full hour after a 429 at 11:20: 5 at 12:30.
        let current = row(3, window: hour, sent: 1, limit: 3, shrunk: 3, throttledAt: hour.addingTimeInterval(-2400))
        #expect(BudgetWindowPlan.writes(for: [current], now: t0, base: BudgetPolicy())
            == [.setLimit(channelID: 3, windowStart: hour, from: 3, to: 5, shrunkLimit: 3, lastThrottledAt: hour.addingTimeInterval(-2400))])
        // …and back at the profile's 12 five hours later, the lowered limit forgotten.
        let later = hour.addingTimeInterval(5 * 3600 - 60)
        let laterRow = row(3, window: later.flooring(toMultipleOf: 3600), limit: 11, shrunk: 3, throttledAt: hour.addingTimeInterval(-2400))
        #expect(BudgetWindowPlan.writes(for: [laterRow], now: later, base: BudgetPolicy())
            == [.setLimit(channelID: 3, windowStart: later.flooring(toMultipleOf: 3600), from: 11, to: 12, shrunkLimit: nil,
                          lastThrottledAt: hour.addingTimeInterval(-2400))])
    }

    @Test func anAppBudgetChangeReachesTheCurrentWindow() {
        let hour = t0.flooring(toMultipleOf: 3600)
        let writes = BudgetWindowPlan.writes(for: [row(7, window: hour, sent: 2, limit: 12, perHour: 60)], now: t0, base: BudgetPolicy())
        #expect(writes == [.setLimit(channelID: 7, windowStart: hour, from: 12, to: 60, shrunkLimit: nil, lastThrottledAt: nil)])
    }

    // MARK: - Roll-up range

    @Test func theFirstRollupStartsAtTheOldestDataAndLaterOnesLookBack() {
        let oldest = t0.addingTimeInterval(-600)  // 12:20:20
        let first = RollupRange.plan(previous: nil, oldestData: oldest, now: t0)
        #expect(first.from == oldest.minuteStart)                                   // 12:20
        #expect(first.to == t0.minuteStart.addingTimeInterval(60))                  // 12:31: the current minute too
        #expect(first.settledBefore == t0.addingTimeInterval(-60).minuteStart)      // 12:29
        let next = RollupRange.plan(previous: first.settledBefore, oldestData: nil, now: t0.addingTimeInterval(10))
        #expect(next.from == first.settledBefore.addingTimeInterval(-120))
        #expect(next.settledBefore == first.settledBefore)
        let empty = RollupRange.plan(previous: nil, oldestData: nil, now: t0)
        #expect(empty.from == empty.settledBefore && empty.to == t0.minuteStart.addingTimeInterval(60))
    }

    @Test func aLongBacklogIsWorkedOffInBoundedSpans() {
        let previous = t0.addingTimeInterval(-30 * 3600).minuteStart
        let range = RollupRange.plan(previous: previous, oldestData: nil, now: t0, maxSpan: 6 * 3600)
        #expect(range.to.timeIntervalSince(range.from) == 6 * 3600)
        #expect(range.settledBefore == range.to)
        let next = RollupRange.plan(previous: range.settledBefore, oldestData: nil, now: t0, maxSpan: 6 * 3600)
        #expect(next.from == range.to.addingTimeInterval(-120))
    }

    // MARK: - Prune

    @Test func pruningContinuesWhileBatchesComeBackFull() {
        let plan = PrunePlan(retentionDays: 14, batchSize: 100, maxBatches: 3)
        #expect(plan.cutoff(at: t0) == t0.addingTimeInterval(-14 * 86_400))
        #expect(plan.continues(afterBatches: 1, lastDeleted: 100))
        #expect(!plan.continues(afterBatches: 1, lastDeleted: 99))
        #expect(!plan.continues(afterBatches: 3, lastDeleted: 100))
    }

    // MARK: - Retire and the channel limit

    @Test func aFinishedGamesChannelRetiresThenIsDeletedAfterTheGrace() {
        let finished = t0.addingTimeInterval(-3600)
        #expect(RetireDecision.decide(status: .active, finishedAt: finished, appPaused: false, now: t0, grace: .seconds(7200)) == .markRetiring)
        #expect(RetireDecision.decide(status: .retiring, finishedAt: finished, appPaused: false, now: t0, grace: .seconds(7200)) == .keep)
        #expect(RetireDecision.decide(status: .retiring, finishedAt: finished, appPaused: false, now: t0, grace: .seconds(3600)) == .delete)
        #expect(RetireDecision.decide(status: .active, finishedAt: finished, appPaused: false, now: t0, grace: .zero) == .delete)
        #expect(RetireDecision.decide(status: .retiring, finishedAt: finished, appPaused: true, now: t0, grace: .zero) == .keep)
    }

    @Test func theLimitWatchWarnsFromEightyPercentAtMostHourly() {
        var watch = ChannelLimitWatch(limit: 100)
        let names: [Int64: String] = [1: "com.a (sandbox)", 2: "com.b (sandbox)"]
        #expect(watch.warnings(counts: [1: 79, 2: 10], names: names, now: t0).isEmpty)
        let first = watch.warnings(counts: [1: 80, 2: 10], names: names, now: t0)
        #expect(first == ["com.a (sandbox) is near its channel limit: 80 of 100 (80%)"])
        #expect(watch.warnings(counts: [1: 80], names: names, now: t0.addingTimeInterval(600)).isEmpty)
        #expect(watch.warnings(counts: [1: 81], names: names, now: t0.addingTimeInterval(700)).count == 1)  // grew by 1 %
        #expect(watch.warnings(counts: [1: 81], names: names, now: t0.addingTimeInterval(700 + 3600)).count == 1)
        let full = watch.warnings(counts: [1: 100], names: names, now: t0.addingTimeInterval(800 + 3600))
        #expect(full.first?.contains("has reached its channel limit") == true)
        #expect(watch.warnings(counts: [1: 50], names: names, now: t0.addingTimeInterval(900 + 3600)).isEmpty)
        #expect(watch.warnings(counts: [1: 95], names: names, now: t0.addingTimeInterval(901 + 3600)).count == 1)  // re-armed
    }

    // MARK: - Ensure backoff

    @Test func aFailingGameBacksOffExponentiallyUntilItSucceeds() {
        var backoff = EnsureBackoff(base: .seconds(60), maximum: .seconds(300))
        #expect(backoff.mayTry("g", at: t0))
        backoff.failed("g", at: t0)
        #expect(!backoff.mayTry("g", at: t0.addingTimeInterval(59)))
        #expect(backoff.mayTry("g", at: t0.addingTimeInterval(60)))
        backoff.failed("g", at: t0.addingTimeInterval(60))
        #expect(backoff.retryAt("g") == t0.addingTimeInterval(180))
        backoff.failed("g", at: t0.addingTimeInterval(180))
        backoff.failed("g", at: t0.addingTimeInterval(420))
        #expect(backoff.retryAt("g") == t0.addingTimeInterval(720))  // capped at 300 s
        backoff.succeeded("g")
        #expect(backoff.mayTry("g", at: t0))
        backoff.failed("h", at: t0)
        backoff.keepOnly(["g"])
        #expect(backoff.retryAt("h") == nil)
    }

    // MARK: - Statistics pieces

    @Test func statsSpansEndWithTheCurrentBucket() {
        let span = StatsSpan(window: .default, now: t0)
        #expect(span.to == t0.minuteStart.addingTimeInterval(60))
        #expect(span.from == span.to.addingTimeInterval(-900))
        #expect(span.bucketStarts.count == 15)
        let day = StatsSpan(window: try! StatsWindow(parsing: "24h"), now: t0)
        #expect(day.bucketSeconds == 300 && day.bucketStarts.count == 288)
        let week = StatsSpan(window: try! StatsWindow(parsing: "7d"), now: t0)
        #expect(week.bucketSeconds == 3600 && week.bucketStarts.count == 168)
    }

    @Test func latencyEstimatesWeighPartsBySamples() {
        let estimate = LatencyPart.estimate([
            LatencyPart(samples: 3, p50: 10, p95: 20, p99: 30),
            LatencyPart(samples: 1, p50: 50, p95: nil, p99: 70),
            LatencyPart(samples: 0, p50: nil, p95: nil, p99: nil),
        ])
        #expect(estimate.samples == 4)
        #expect(estimate.p50Ms == 20)       // (3×10 + 1×50) / 4
        #expect(estimate.p95Ms == 20)       // only the part that has one
        #expect(estimate.p99Ms == 40)       // (3×30 + 70) / 4
        #expect(LatencyPart.estimate([]) == .empty)
    }
}
