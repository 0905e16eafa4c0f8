import Foundation
import Testing
@testable import Scorecast

/// APNs trouble reaches the log once per cause at once, then as a count per interval.
@Suite struct TroubleSummaryTests {
    @Test func firstOccurrenceAtOnceThenOneCountPerCausePerInterval() {
        var summary = TroubleSummary(interval: 60)
        let start = Date(timeIntervalSince1970: 1_000_000)
        #expect(summary.record(cause: "TooManyRequests", app: "com.a", now: start)?.fields == ["cause": "TooManyRequests", "app": "com.a"])
        for second in 1...36 {
            #expect(summary.record(cause: "TooManyRequests", app: second % 2 == 0 ? "com.a" : "com.b", now: start + Double(second)) == nil)
        }
        #expect(summary.record(cause: "connection_failed", app: "com.a", now: start + 40) != nil)
        #expect(summary.flush(now: start + 59.9).isEmpty)
        let lines = summary.flush(now: start + 60)
        #expect(lines.count == 1, "a cause seen once was said already")
        #expect(lines.first?.fields == ["cause": "TooManyRequests", "count": "37", "apps": "com.a,com.b"])
        #expect(lines.first?.message.contains("×37") == true)
        // A new window: the cause is new again.
        #expect(summary.flush(now: start + 200).isEmpty)
        #expect(summary.record(cause: "TooManyRequests", app: "com.a", now: start + 201) != nil)
    }
}
