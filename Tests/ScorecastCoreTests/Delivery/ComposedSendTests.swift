import APNsCore
import Foundation
import JSON
import Testing
@testable import ScorecastCore

@Suite struct ComposedSendTests {
    static let state = LiveActivityPayload(timestamp: 1_764_452_700, event: .update, contentState: ["homeScore": 2, "awayScore": 0])
    static let goal = LiveActivityAlert(title: .plain("GOAL"), body: .plain("Saka 67'"), sound: "default")

    static func decoded(_ body: [UInt8]) throws -> LiveActivityPayload {
        try LiveActivityPayload(jsonValue: try JSONParser().parse(body))
    }

    @Test func aStateSendNotBehindTheChannelGoesAsStored() throws {
        let stored = try Self.state.encode(for: .broadcast)
        let send = ComposedSend.compose(stored: stored, storedTimestamp: Self.state.timestamp, alert: nil, channelLastTimestamp: Self.state.timestamp)
        #expect(send.body == stored)
        #expect(send.timestamp == Self.state.timestamp)
        #expect(!send.alertSent)
    }

    @Test func aStateBehindTheChannelIsRaisedToItsLastTimestamp() throws {
        let stored = try Self.state.encode(for: .broadcast)
        let send = ComposedSend.compose(stored: stored, storedTimestamp: Self.state.timestamp, alert: nil, channelLastTimestamp: Self.state.timestamp + 5)
        #expect(send.timestamp == Self.state.timestamp + 5)
        #expect(try Self.decoded(send.body).timestamp == Self.state.timestamp + 5)
        #expect(try Self.decoded(send.body).contentState == Self.state.contentState)
    }

    @Test func anAlertRidesOnTheNewestStateAboveTheLastTimestamp() throws {
        let stored = try Self.state.encode(for: .broadcast)
        // First alert: the state is newer than the channel's last send, its own time stays.
        let first = ComposedSend.compose(stored: stored, storedTimestamp: Self.state.timestamp, alert: Self.goal, channelLastTimestamp: Self.state.timestamp - 60)
        #expect(first.alertSent)
        #expect(try Self.decoded(first.body).alert == Self.goal)
        #expect(first.timestamp == Self.state.timestamp)
        // Second alert of the same second: raised by one, so the device keeps it.
        let second = ComposedSend.compose(stored: stored, storedTimestamp: Self.state.timestamp, alert: Self.goal, channelLastTimestamp: first.timestamp)
        #expect(second.timestamp == Self.state.timestamp + 1)
        #expect(try Self.decoded(second.body).timestamp == Self.state.timestamp + 1)
        #expect(try Self.decoded(second.body).alert == Self.goal)
    }

    @Test func anAlertThatDoesNotFitLeavesTheStateToGoAlone() throws {
        var big = Self.state
        big.contentState = ["pad": .string(String(repeating: "x", count: 4_000))]
        let stored = try big.encode(for: .broadcast)
        let huge = LiveActivityAlert(title: .plain(String(repeating: "H", count: 900)), body: .plain(String(repeating: "B", count: 900)))
        let send = ComposedSend.compose(stored: stored, storedTimestamp: big.timestamp, alert: huge, channelLastTimestamp: 0)
        #expect(!send.alertSent)
        #expect(try Self.decoded(send.body).alert == nil)
        #expect(try Self.decoded(send.body).contentState == big.contentState)
    }

    @Test func aQueuedAlertReadsBackFromItsStoredForm() throws {
        let queued = [QueuedAlert(key: "41", alert: Self.goal, queuedAt: Date(timeIntervalSince1970: 1_764_452_700.25))]
        let text = QueuedAlert.encodedQueue(queued)
        #expect(try QueuedAlert.queue(from: try JSONParser().parse(text)) == queued)
        #expect(throws: StoredValueError.self) { try QueuedAlert.queue(from: ["not an object"]) }
    }
}
