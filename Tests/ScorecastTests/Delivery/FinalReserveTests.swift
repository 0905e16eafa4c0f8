import Foundation
import Testing
import TestSupport

/// The budget's final reserve through real ingest, the worker pool and the simulator, whose
/// rolling-hour ledger and request log are the witnesses.
@Suite struct FinalReserveTests {
    @Test func theFinalWhistleGoesAtPriorityTenAfterGoalsUsedTheRest() async throws {
        try await DeliveryHarness.with { harness in
            let (channel, ingestor) = try await AlertQueueTests.setUp(harness)
            try await harness.pool.execute("UPDATE apps SET budget_per_hour = 3 WHERE id = \(harness.appID)")
            let settings = harness.settings(workers: 2)
            #expect(settings.budgetPolicy.finalReserve == 1, "the settings table's default")
            let workers = harness.makePool(settings)
            try await harness.running(workers) {
                try await AlertQueueTests.ingest(ingestor, [
                    AlertQueueTests.event("goal-1", seq: 1, kind: "score", player: "Saka", home: 1),
                    AlertQueueTests.event("goal-2", seq: 2, kind: "score", player: "Odegaard", home: 2),
                    AlertQueueTests.event("goal-3", seq: 3, kind: "score", player: "Havertz", home: 3),
                ])
                try await eventually("the goals are sent") { try await harness.outboxCount() == 0 }
                try await AlertQueueTests.ingest(ingestor, [
                    AlertQueueTests.event("final", seq: 4, kind: "final", player: "Saka", home: 3),
                ])
                try await eventually("the final whistle is sent") { try await harness.outboxCount() == 0 }
            }
            let accepted = harness.broadcasts(to: channel.apnsID).filter { $0.status == 200 }
            #expect(accepted.count == 4)
            #expect(accepted.map { $0.header("apns-priority") } == ["10", "10", "5", "10"], "two goals spend all but the reserve; the final whistle spends it")
            #expect(try await harness.database.ledger(channel.id).map(\.kind) == ["priority10", "priority10", "priority10"])
            #expect(workers.statistics.downgraded == 1)
        }
    }
}
