import Clocks
@testable import Devices
import Foundation
import ScorecastCore
import Synchronization
import TestSupport
import Testing

/// The push-to-start pacer and the app API's rate limiter keep time on the service clock: a test
/// steps a `ManualServiceClock` and the buckets refill by exactly that much, with no real wait.
@Suite struct SendPacerTests {
    /// A clock whose steps of a quarter second add up exactly (binary fractions of a whole second).
    private static func clock() -> ManualServiceClock { ManualServiceClock(Date(timeIntervalSince1970: 1_764_450_000)) }

    @Test func aPacerAtTwoASecondLetsTwoGoAndTheThirdWaitsHalfASecondOfClockTime() async throws {
        let clock = Self.clock()
        let pacer = SendPacer(perSecond: 2, clock: clock)
        try await withDeadline("the first two sends go at once") {
            await pacer.wait()
            await pacer.wait()
        }
        let third = Mutex(false)
        let waiting = Task {
            await pacer.wait()
            third.withLock { $0 = true }
        }
        try await eventually("the third send sleeps on the clock") { clock.sleeperCount == 1 }
        clock.advance(by: .milliseconds(250))
        #expect(clock.sleeperCount == 1, "a quarter second brings half a token: the third still waits")
        #expect(!third.withLock { $0 })
        clock.advance(by: .milliseconds(250))
        try await withDeadline("the third send goes once the clock has moved half a second") { await waiting.value }
        #expect(third.withLock { $0 })
        #expect(clock.sleeperCount == 0)
    }

    @Test func aCancelledWaitReturnsWithoutTheClockMoving() async throws {
        let clock = Self.clock()
        let pacer = SendPacer(perSecond: 1, clock: clock)
        await pacer.wait()
        let waiting = Task { await pacer.wait() }
        try await eventually("the second send sleeps on the clock") { clock.sleeperCount == 1 }
        waiting.cancel()
        try await withDeadline("the cancelled wait returns") { await waiting.value }
        #expect(clock.sleeperCount == 0)
    }

    @Test func theLimiterRefillsAsTheClockMovesAndNotOtherwise() {
        let clock = Self.clock()
        let limiter = RequestRateLimiter(perMinute: 60, burst: 2, clock: clock)
        #expect(limiter.take("d1") == .allowed)
        #expect(limiter.take("d1") == .allowed)
        #expect(limiter.take("d1") == .limited(retryAfter: 1))
        #expect(limiter.take("d2") == .allowed, "another key has its own bucket")
        clock.advance(by: .milliseconds(500))
        #expect(limiter.take("d1") == .limited(retryAfter: 0.5))
        clock.advance(by: .milliseconds(500))
        #expect(limiter.take("d1") == .allowed)
        #expect(limiter.take("d1") == .limited(retryAfter: 1))
    }
}
