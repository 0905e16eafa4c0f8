import APNsSimulator
import Clocks
import Foundation
import ScorecastCore
import TestSupport
import Testing

/// The workers' clock decides their rules, whatever the database's clock says: the workers run
/// two days ahead of Postgres here, and time moves only when the test moves it.
@Suite struct WorkerClockTests {
    /// A 503's retry is dated by the workers' clock: it waits while that clock stands still and
    /// goes once the clock passes its backoff. (Dated by the database's clock, the backoff would
    /// lie two days in the workers' past and the retry go at once.)
    @Test func aRetryWaitsItsBackoffOnTheWorkersClock() async throws {
        try await DeliveryHarness.with { harness in
            let channel = try await harness.createChannel()
            try harness.simulator.setFaults(SimulatorFaults(failNext: 1, failStatus: 503))
            let start = Date().addingTimeInterval(2 * 86_400)
            let clock = ManualServiceClock(start)
            let settings = harness.settings(workers: 1)
            let workers = harness.makePool(settings, clock: clock)
            try await harness.running(workers) {
                try await harness.enqueue(channelID: channel.id, score: 1, timestamp: 1_750_000_001)
                try await eventually("the 503 is written back") { try await harness.database.deliveries(channel.id).count == 1 }
                let row = try #require(try await harness.database.outbox(channel.id), "the retry is still waiting")
                let notBefore = try #require(row.notBefore)
                #expect(notBefore > start && notBefore <= start.addingTimeInterval(settings.retryPolicy.maximumDelay), "\(notBefore)")
                #expect(harness.broadcasts(to: channel.apnsID).map(\.status) == [503])

                clock.advance(by: .seconds(notBefore.timeIntervalSince(start)))
                try await eventually("the retry goes once the clock passes its backoff") { try await harness.outboxCount() == 0 }
            }
            #expect(harness.broadcasts(to: channel.apnsID).map(\.status) == [503, 200])
            // The send is dated by the same clock (to Postgres' microsecond).
            let sentAt = try #require(try await harness.database.channel(channel.id).lastSentAt)
            #expect(abs(sentAt.timeIntervalSince(clock.now())) < 0.000_01, "\(sentAt) vs \(clock.now())")
        }
    }
}
