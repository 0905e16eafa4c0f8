import Foundation
import ScorecastCore
import TestSupport
import Testing
@testable import DeliveryEngine

@Suite struct RetryTests {
    static let policy = RetryPolicy(baseDelay: 0.5, maximumDelay: 30, minimumDelay: 0.05, maximumAttempts: 5, maximumRetryAfter: 120)

    @Test(arguments: [(1, 0.5), (2, 1.0), (3, 2.0), (6, 16.0), (7, 30.0), (100, 30.0), (0, 0.5), (-4, 0.5)])
    func boundsGrowExponentiallyToTheCap(attempt: Int, bound: Double) {
        #expect(Self.policy.bound(afterAttempt: attempt) == bound)
    }

    @Test func fullJitterStaysWithinTheBoundAndSpreads() {
        var random = SeededGenerator(seed: 42)
        for attempt in 1...8 {
            let bound = Self.policy.bound(afterAttempt: attempt)
            let delays = (0..<500).map { _ in Self.policy.delay(afterAttempt: attempt, retryAfter: nil, using: &random) }
            #expect(delays.allSatisfy { $0 >= 0.05 && $0 <= max(0.05, bound) })
            // Full jitter: the spread covers most of [0, bound], not a narrow band.
            #expect((delays.max() ?? 0) > bound * 0.9)
            #expect((delays.min() ?? bound) <= max(0.05, bound * 0.1))
        }
    }

    @Test(arguments: [
        (UInt64.min, nil as Double?, 0.05),
        (UInt64.max, nil, 4.0),
        (UInt64.min, 7, 7),
        (UInt64.max, 1, 4.0),
        (UInt64.min, 10_000, 120),
        (UInt64.min, -5, 0.05),
        (UInt64.min, .nan, 0.05),
    ])
    func retryAfterIsAFloorAndIsCapped(word: UInt64, retryAfter: Double?, expected: Double) {
        var random = ConstantGenerator(value: word)
        let delay = Self.policy.delay(afterAttempt: 4, retryAfter: retryAfter, using: &random)
        #expect(abs(delay - expected) < 1e-9)
    }

    @Test(arguments: [
        ("120", 120.0 as Double?),
        (" 0 ", 0),
        ("99999999999999999999999", 1e23),
        (String(repeating: "9", count: 400), Double.greatestFiniteMagnitude),
        ("Sat, 29 Nov 2025 21:47:00 GMT", 120),
        ("Sat, 29 Nov 2025 21:40:00 GMT", 0),
        ("-5", nil),
        ("1.5", nil),
        ("", nil),
        ("Sat, 29 Nov 2025 21:47:00 UTC", nil),
        ("Saturday, 29-Nov-25 21:47:00 GMT", nil),
        ("Sat, 31 Nov 2025 21:47:00 GMT", nil),
    ])
    func parsesRetryAfter(header: String, expected: Double?) {
        let now = Date(timeIntervalSince1970: 1_764_452_700)
        #expect(RetryAfter.seconds(from: header, now: now) == expected)
    }
}
