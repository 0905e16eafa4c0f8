import APNsSimulator
import DeliveryEngine
import Foundation
import ScorecastLogging
import ScorecastCore
import Testing
import TestSupport

/// One 429 with a long `Retry-After` must not freeze a channel: the simulator counts a rolling
/// hour of priority-10 sends and answers 429 with Retry-After 3600 past its budget.
@Suite struct ThrottleTests {
    @Test func aThrottledChannelKeepsReceivingStateAndAlertsAtPriorityFive() async throws {
        try await DeliveryHarness.with(configure: {
            $0.budgetPerHour = 1
            $0.retryAfter = .seconds(3600)
        }) { harness in
            let (channel, ingestor) = try await AlertQueueTests.setUp(harness)
            let retry = RetryPolicy(baseDelay: 0.05, maximumDelay: 0.2, minimumDelay: 0.01, maximumAttempts: 12)
            let workers = harness.makePool(harness.settings(workers: 1, retry: retry))
            try await harness.running(workers) {
                for (seq, player) in ["Saka", "Odegaard", "Havertz"].enumerated() {
                    try await AlertQueueTests.ingest(ingestor, [
                        AlertQueueTests.event("goal-\(seq)", seq: seq + 1, kind: "score", player: player, home: seq + 1)])
                    try await eventually("goal \(seq + 1) is sent") { try await harness.outboxCount() == 0 }
                }
            }
            let received = harness.broadcasts(to: channel.apnsID)
            #expect(received.map(\.status) == [200, 429, 200, 200], "\(received.map(\.status))")
            #expect(received.map { $0.header("apns-priority") } == ["10", "10", "5", "5"], "after the 429 priority 10 waits, state does not")
            let accepted = try received.filter { $0.status == 200 }.map(AlertQueueTests.seen)
            #expect(accepted.map(\.player) == ["Saka", "Odegaard", "Havertz"])
            #expect(accepted.last?.homeScore == 3)
            let ledger = try await harness.database.ledger(channel.id)
            #expect(ledger.map(\.kind) == ["priority10", "throttled"], "the 429 is remembered in the channel's ledger")
            let deliveries = try await harness.database.deliveries(channel.id)
            #expect(deliveries.filter { $0.outcome == "sent" }.map(\.downgraded) == [false, true, true], "the goals sent at 5 are counted downgraded")
        }
    }
}
