import Clocks
import Foundation
@testable import ScorecastCLI
@testable import Statistics
import Testing

/// The terminal rendering of `scorecast stats`.
@Suite struct StatsCommandTests {
    @Test func theSummaryNamesEveryFigure() {
        let figures = DeliveryFigures(
            events: EventCounts(accepted: 40, duplicate: 2, stale: 1, rejected: 0),
            sends: SendCounts(accepted: 90, retried: 6, failed: 4, priority10: 30, priority5: 70),
            failures: [ReasonCount(reason: "TooManyRequests", count: 5), ReasonCount(reason: "BadPriority", count: 4)],
            coalesced: 12, downgraded: 7, retried: 8, throttled: 5,
            latency: LatencyFigures(
                ingestToSend: LatencyPercentiles(samples: 100, p50Ms: 6.04, p95Ms: 20, p99Ms: 41.26),
                sendToAnswer: .empty))
        // 2026-03-01 12:30:20 UTC; the window ends at the end of its minute.
        let now = Date(timeIntervalSince1970: 1_772_368_220)
        let from = now.minuteStart.addingTimeInterval(-840)
        let text = StatsCommands.render(StatsResponse(
            window: .default, from: from, to: now.minuteStart.addingTimeInterval(60), totals: figures, series: []))
        #expect(text.contains("last 15m (2026-03-01 12:16 to 2026-03-01 12:31 UTC)"))
        for line in ["sends        100", "accepted 90, retried 6, failed 4", "10: 30, 5: 70", "coalesced    12", "downgraded   7",
                     "retried      8", "throttled    5", "accepted 40, duplicate 2, stale 1, rejected 0",
                     "p50 6.0 ms, p95 20.0 ms, p99 41.3 ms", "no samples", "TooManyRequests  5"] {
            #expect(text.contains(line), "missing \(line) in:\n\(text)")
        }
    }
}
