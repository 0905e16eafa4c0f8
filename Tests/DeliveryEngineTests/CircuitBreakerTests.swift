import Foundation
import ScorecastCore
import Testing
@testable import DeliveryEngine

@Suite struct CircuitBreakerTests {
    static let start = Date(timeIntervalSince1970: 1_764_450_000)
    static let policy = CircuitBreaker.Policy(failureThreshold: 3, initialOpenInterval: 1, maximumOpenInterval: 4, probeTimeout: 15)

    @Test func opensAfterConsecutiveFailuresOnly() {
        var breaker = CircuitBreaker(policy: Self.policy)
        #expect(breaker.record(.failed, now: Self.start) == .none)
        #expect(breaker.record(.failed, now: Self.start) == .none)
        #expect(breaker.record(.answered, now: Self.start) == .none, "a healthy answer resets the count")
        #expect(breaker.record(.failed, now: Self.start) == .none)
        #expect(breaker.record(.failed, now: Self.start) == .none)
        #expect(breaker.permission(now: Self.start) == .send)
        #expect(breaker.record(.failed, now: Self.start) == .opened(until: Self.start.addingTimeInterval(1)))
        #expect(breaker.permission(now: Self.start.addingTimeInterval(0.5)) == .wait(until: Self.start.addingTimeInterval(1)))
        #expect(breaker.record(.failed, now: Self.start.addingTimeInterval(0.5)) == .none, "stragglers change nothing")
    }

    @Test func probesOneAtATimeAndBacksOffUpToTheMaximum() {
        var breaker = CircuitBreaker(policy: Self.policy)
        for _ in 0..<3 { _ = breaker.record(.failed, now: Self.start) }
        var now = Self.start.addingTimeInterval(1)
        var intervals: [Double] = []
        for _ in 0..<4 {
            #expect(breaker.permission(now: now) == .probe)
            #expect(breaker.permission(now: now) == .wait(until: now.addingTimeInterval(15)), "one probe at a time")
            guard case .opened(let until) = breaker.record(.failed, now: now) else {
                Issue.record("a failed probe reopens")
                return
            }
            intervals.append(until.timeIntervalSince(now))
            now = until
        }
        #expect(intervals == [2, 4, 4, 4])
    }

    @Test func aHealthyProbeClosesAtOnce() {
        var breaker = CircuitBreaker(policy: Self.policy)
        for _ in 0..<3 { _ = breaker.record(.failed, now: Self.start) }
        let later = Self.start.addingTimeInterval(1)
        #expect(breaker.permission(now: later) == .probe)
        #expect(breaker.record(.answered, now: later) == .closed)
        #expect(breaker.permission(now: later) == .send)
        #expect(!breaker.isOpen)
    }

    @Test func aLostProbeIsReplacedAfterItsTimeoutAndAnEmptyOneWaitsAnInterval() {
        var breaker = CircuitBreaker(policy: Self.policy)
        for _ in 0..<3 { _ = breaker.record(.failed, now: Self.start) }
        let first = Self.start.addingTimeInterval(1)
        #expect(breaker.permission(now: first) == .probe)
        #expect(breaker.permission(now: first.addingTimeInterval(15)) == .probe, "no answer in 15 s: another probe")
        breaker.probeFoundNothing(now: first.addingTimeInterval(15))
        #expect(breaker.permission(now: first.addingTimeInterval(15.5)) == .wait(until: first.addingTimeInterval(16)))
        #expect(breaker.permission(now: first.addingTimeInterval(16)) == .probe)
    }
}
