import APNsSimulator
@testable import Delivery
import Foundation
import Postgres
import Testing
import TestSupport

/// A row a completion gives back to the outbox — a newer payload arrived during its send, or
/// the send is to be retried — announces itself with no NOTIFY, and the idle workers may have
/// looked at the due times while it was leased (a leased row is not due). The workers look
/// again when such a completion is written, so the row goes out then, not at the next poll:
/// here an hour, so only that look can send it before the hang deadline.
@Suite struct GivenBackRowTests {
    static func settings(_ harness: DeliveryHarness) -> WorkerSettings {
        harness.ownNotifyChannel(harness.settings(workers: 2, poll: .seconds(3_600)))
    }

    @Test func aGoalThatArrivesDuringTheSendOfTheLastOneGoesOutWhenThatSendEnds() async throws {
        try await DeliveryHarness.with { harness in
            let settings = Self.settings(harness)
            let workers = harness.makePool(settings)
            let channel = try await harness.createChannel()
            // The first send's answer is held until the second goal is in: "during the send"
            // holds however slowly this machine writes it (no latency to beat).
            try harness.simulator.setFaults(SimulatorFaults(holdAnswers: true))
            try await harness.running(workers) {
                try await harness.enqueue(channelID: channel.id, score: 1, timestamp: 1_750_000_001, notify: false)
                try await harness.pool.notify(channel: settings.notifyChannel)
                try await eventually("the first goal is on its way") { harness.simulator.heldAnswerCount == 1 }
                // The second goal, announced while the first is in flight: the workers it wakes
                // find the row leased.
                try await harness.enqueue(channelID: channel.id, score: 2, timestamp: 1_750_000_002, notify: false)
                try await harness.pool.notify(channel: settings.notifyChannel)
                #expect(harness.broadcasts(to: channel.apnsID).count == 1, "the second goal waits for the first send")
                try harness.simulator.setFaults(.none)
                try await eventually("the second goal is sent after the first") {
                    harness.broadcasts(to: channel.apnsID).contains { $0.status == 200 && $0.body.contains("\"homeScore\":2") }
                }
            }
            #expect(harness.broadcasts(to: channel.apnsID).map(\.status) == [200, 200])
        }
    }

    @Test func aSendToBeRetriedIsRetriedAfterItsBackoffNotAtTheNextPoll() async throws {
        try await DeliveryHarness.with { harness in
            let settings = Self.settings(harness)
            let workers = harness.makePool(settings)
            let channel = try await harness.createChannel()
            try harness.simulator.setFaults(SimulatorFaults(failNext: 1, failStatus: 503))
            try await harness.running(workers) {
                try await harness.enqueue(channelID: channel.id, score: 1, timestamp: 1_750_000_001, notify: false)
                try await harness.pool.notify(channel: settings.notifyChannel)
                try await eventually("the retry is sent") { harness.broadcasts(to: channel.apnsID).contains { $0.status == 200 } }
            }
            #expect(harness.broadcasts(to: channel.apnsID).map(\.status) == [503, 200])
        }
    }
}
