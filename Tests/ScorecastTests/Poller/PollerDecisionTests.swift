import Clocks
import Foundation
import ScorecastCore
@testable import Server
@testable import Statistics
import Testing

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
