import APNsSimulator
import Foundation
import JSON
import ScorecastCore
import Testing
import TestSupport

/// No send APNs accepted is followed by an accepted send showing the same thing on that
/// channel: real ingest, real workers, the simulator over HTTP/2 + TLS as the witness.
@Suite struct RepeatSendTests {
    /// What an accepted broadcast showed: its event and content-state, as canonical JSON.
    static func shown(_ request: SimulatorReceivedRequest) throws -> String {
        let aps = try #require(try JSONParser().parse(request.body)["aps"])
        let event = try #require(aps["event"])
        let contentState = try #require(aps["content-state"])
        let value: JSONValue = ["event": event, "content-state": contentState]
        return try value.encodedString()
    }

    static func clockEvent(_ id: String, seq: Int, at time: String, clock: String, home: Int) -> String {
        #"{"id": "\#(id)", "game": "g1", "seq": \#(seq), "occurredAt": "\#(time)", "kind": "clock", "scoreboard": {"home": \#(home), "away": 0, "period": "1H", "clock": "\#(clock)"}}"#
    }

    /// A clock tick (which the phone runs itself) ingested while the goal's send is held in
    /// flight used to rewrite the row as it was: the send's completion then kept the content it
    /// had just sent pending, and it went again.
    @Test func aClockTickDuringASendDoesNotSendItsStateAgain() async throws {
        try await DeliveryHarness.with { harness in
            let (channel, ingestor) = try await AlertQueueTests.setUp(harness)
            try harness.simulator.setFaults(SimulatorFaults(holdAnswers: true))
            let workers = harness.makePool(harness.settings(workers: 1, lease: .seconds(3_600)))
            try await harness.running(workers) {
                try await AlertQueueTests.ingest(ingestor, [
                    #"{"id": "kickoff", "game": "g1", "seq": 1, "occurredAt": "2025-11-29T20:00:00Z", "kind": "start", "scoreboard": {"home": 0, "away": 0, "period": "1H", "clock": "0'"}}"#,
                ])
                try await eventually("the kick-off is in flight") { harness.simulator.heldAnswerCount == 1 }
                let before = try await OutboxWrites.count(harness.pool)
                try await AlertQueueTests.ingest(ingestor, [Self.clockEvent("tick", seq: 2, at: "2025-11-29T20:01:00Z", clock: "1'", home: 0)])
                let written = try await OutboxWrites.count(harness.pool) - before
                #expect(written == OutboxWrites(inserted: 0, updated: 0, deleted: 0), "a tick writes nothing: \(written)")
                try harness.simulator.setFaults(.none)
                try await eventually("the kick-off is settled") { try await harness.outboxCount() == 0 }
                // Something after the tick that does change the state goes, once.
                try await AlertQueueTests.ingest(ingestor, [Self.clockEvent("stats", seq: 3, at: "2025-11-29T20:02:00Z", clock: "2'", home: 1)])
                try await eventually("the score is settled") { try await harness.outboxCount() == 0 }
            }
            let accepted = harness.broadcasts(to: channel.apnsID).filter { $0.status == 200 }
            let shown = try accepted.map(Self.shown)
            #expect(accepted.count == 2, "\(shown)")
            #expect(zip(shown, shown.dropFirst()).allSatisfy { $0 != $1 }, "no accepted send repeats the one before: \(shown)")
        }
    }

    /// Whatever put it in the outbox again, a state the channel already shows is not sent:
    /// the row is finished unsent, and the next change goes as usual.
    @Test func aStateTheChannelAlreadyShowsIsNotSentAgain() async throws {
        try await DeliveryHarness.with { harness in
            let channel = try await harness.createChannel()
            let workers = harness.makePool(harness.settings(workers: 1))
            try await harness.running(workers) {
                try await harness.enqueue(channelID: channel.id, score: 1, timestamp: 1_750_000_001, priority: 5, alerting: false)
                try await eventually("the first state is sent") { try await harness.outboxCount() == 0 }
                try await harness.enqueue(channelID: channel.id, score: 1, timestamp: 1_750_000_001, priority: 5, alerting: false)
                try await eventually("the repeat is settled") { try await harness.outboxCount() == 0 }
                try await harness.enqueue(channelID: channel.id, score: 2, timestamp: 1_750_000_002, priority: 5, alerting: false)
                try await eventually("the new state is sent") { try await harness.outboxCount() == 0 }
            }
            let accepted = harness.broadcasts(to: channel.apnsID).filter { $0.status == 200 }
            #expect(try accepted.map(Self.shown) == [
                #"{"content-state":{"awayScore":0,"homeScore":1},"event":"update"}"#,
                #"{"content-state":{"awayScore":0,"homeScore":2},"event":"update"}"#,
            ])
            #expect(workers.statistics.repeatsSkipped == 1)
            #expect(try await harness.database.deliveries(channel.id).map(\.outcome) == ["sent", "sent"])
        }
    }
}
