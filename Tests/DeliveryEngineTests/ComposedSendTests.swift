import APNsCore
import Foundation
import JSON
import ScorecastCore
import Testing
@testable import DeliveryEngine

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

    static let fullTime = LiveActivityPayload(
        timestamp: 1_764_459_000, event: .end, contentState: ["homeScore": 3, "awayScore": 1], dismissalDate: 1_764_462_600)
    static let finalWhistle = LiveActivityAlert(title: .plain("FULL TIME"), body: .plain("3-1"), sound: "default")

    @Test func anAlertQueuedAheadOfOthersOnAnEndingStateGoesAsAnUpdate() throws {
        let stored = try Self.fullTime.encode(for: .broadcast)
        let send = ComposedSend.compose(
            stored: stored, storedTimestamp: Self.fullTime.timestamp, alert: Self.goal, alertsAfter: 1,
            channelLastTimestamp: Self.fullTime.timestamp - 60)
        let sent = try Self.decoded(send.body)
        #expect(send.alertSent)
        #expect(sent.event == .update, "an alert still waits behind this one: the activity must not end yet")
        #expect(sent.dismissalDate == nil)
        #expect(sent.alert == Self.goal)
        #expect(sent.contentState == Self.fullTime.contentState)
        #expect(sent.timestamp == Self.fullTime.timestamp)
    }

    @Test func theLastQueuedAlertCarriesTheEnd() throws {
        let stored = try Self.fullTime.encode(for: .broadcast)
        let send = ComposedSend.compose(
            stored: stored, storedTimestamp: Self.fullTime.timestamp, alert: Self.finalWhistle, alertsAfter: 0,
            channelLastTimestamp: Self.fullTime.timestamp)
        let sent = try Self.decoded(send.body)
        #expect(sent.event == .end)
        #expect(sent.dismissalDate == Self.fullTime.dismissalDate)
        #expect(sent.alert == Self.finalWhistle)
        #expect(sent.timestamp == Self.fullTime.timestamp + 1)
    }

    @Test func anEndingStateWhoseAlertDoesNotFitStillWaitsForTheAlertsBehindIt() throws {
        var big = Self.fullTime
        big.contentState = ["pad": .string(String(repeating: "x", count: 4_000))]
        let stored = try big.encode(for: .broadcast)
        let huge = LiveActivityAlert(title: .plain(String(repeating: "H", count: 900)), body: .plain(String(repeating: "B", count: 900)))
        let send = ComposedSend.compose(stored: stored, storedTimestamp: big.timestamp, alert: huge, alertsAfter: 2, channelLastTimestamp: 0)
        #expect(!send.alertSent)
        #expect(try Self.decoded(send.body).event == .update)
        #expect(try Self.decoded(send.body).dismissalDate == nil)
    }

    @Test func aQueueDrainedOverAnEndingStateEndsOnlyWithItsLastSend() throws {
        let stored = try Self.fullTime.encode(for: .broadcast)
        let queue = [Self.goal, Self.goal, Self.finalWhistle]
        var last = 0
        var events: [LiveActivityEvent] = []
        for (index, alert) in queue.enumerated() {
            let send = ComposedSend.compose(
                stored: stored, storedTimestamp: Self.fullTime.timestamp, alert: alert, alertsAfter: queue.count - index - 1,
                channelLastTimestamp: last)
            #expect(send.timestamp > last, "each send is newer than the one before, so the phone keeps it")
            last = send.timestamp
            events.append(try Self.decoded(send.body).event)
        }
        #expect(events == [.update, .update, .end])
    }

    @Test func anEndCarriesTheDismissalDateOfItsSendNotTheStoredOne() throws {
        let stored = try Self.fullTime.encode(for: .broadcast)
        // An hour late (an outage): the stored date would already be past on arrival.
        let sentLate = 1_764_462_600 + 3_600
        let alone = ComposedSend.compose(
            stored: stored, storedTimestamp: Self.fullTime.timestamp, alert: nil, channelLastTimestamp: Self.fullTime.timestamp,
            dismissalDate: sentLate)
        #expect(try Self.decoded(alone.body).dismissalDate == sentLate)
        #expect(try Self.decoded(alone.body).event == .end)
        #expect(alone.timestamp == Self.fullTime.timestamp)
        let alerted = ComposedSend.compose(
            stored: stored, storedTimestamp: Self.fullTime.timestamp, alert: Self.finalWhistle, channelLastTimestamp: 0,
            dismissalDate: sentLate)
        #expect(try Self.decoded(alerted.body).dismissalDate == sentLate)
        #expect(try Self.decoded(alerted.body).alert == Self.finalWhistle)
        // An update has none, whatever the send time.
        let update = try Self.state.encode(for: .broadcast)
        let routine = ComposedSend.compose(
            stored: update, storedTimestamp: Self.state.timestamp, alert: nil, channelLastTimestamp: 0, dismissalDate: sentLate)
        #expect(routine.body == update)
    }

    @Test func aStateSendShowingWhatTheLastAcceptedSendShowedIsARepeat() throws {
        let stored = try Self.state.encode(for: .broadcast)
        let last = ShownState(payload: Self.state)
        // The same state again, even at a later timestamp, shows nothing new.
        let again = ComposedSend.compose(
            stored: stored, storedTimestamp: Self.state.timestamp, alert: nil, channelLastTimestamp: Self.state.timestamp + 5,
            lastAccepted: last)
        #expect(again.repeatsLastAccepted)
        // A new alert on the same state is not a repeat.
        let alerted = ComposedSend.compose(
            stored: stored, storedTimestamp: Self.state.timestamp, alert: Self.goal, channelLastTimestamp: Self.state.timestamp,
            lastAccepted: last)
        #expect(!alerted.repeatsLastAccepted)
        // Nor is a changed state, an ending one, or any state on a channel that showed nothing yet.
        var changed = Self.state
        changed.contentState = ["homeScore": 3, "awayScore": 0]
        #expect(!ComposedSend.compose(
            stored: try changed.encode(for: .broadcast), storedTimestamp: changed.timestamp, alert: nil,
            channelLastTimestamp: 0, lastAccepted: last).repeatsLastAccepted)
        var ending = Self.state
        ending.event = .end
        #expect(!ComposedSend.compose(
            stored: try ending.encode(for: .broadcast), storedTimestamp: ending.timestamp, alert: nil,
            channelLastTimestamp: 0, lastAccepted: last).repeatsLastAccepted)
        #expect(!ComposedSend.compose(
            stored: stored, storedTimestamp: Self.state.timestamp, alert: nil, channelLastTimestamp: 0, lastAccepted: nil).repeatsLastAccepted)
    }

    @Test func whatASendShowsIgnoresItsTimestampAlertAndDatesButNotItsContent() throws {
        var later = Self.state
        later.timestamp += 60
        later.staleDate = later.timestamp + 900
        later.alert = Self.goal
        #expect(ShownState(payload: later) == ShownState(payload: Self.state))
        #expect(ShownState(body: try later.encode(for: .broadcast)) == ShownState(payload: Self.state))
        var other = Self.state
        other.contentState = ["homeScore": 2, "awayScore": 1]
        #expect(ShownState(payload: other) != ShownState(payload: Self.state))
        #expect(ShownState(body: Array("not json".utf8)) == nil)
        // Stable across processes and versions (it is stored): FNV-1a 64 of
        // `{"content-state":{"a":1},"event":"update"}`, computed apart from this code.
        let fixed = LiveActivityPayload(timestamp: 1, event: .update, contentState: ["a": 1])
        #expect(ShownState(payload: fixed).fingerprint == 8_462_710_319_275_644_469)
    }

    @Test func aQueuedAlertReadsBackFromItsStoredForm() throws {
        let queued = [QueuedAlert(key: "41", alert: Self.goal, queuedAt: Date(timeIntervalSince1970: 1_764_452_700.25))]
        let text = QueuedAlert.encodedQueue(queued)
        #expect(try QueuedAlert.queue(from: try JSONParser().parse(text)) == queued)
        #expect(throws: StoredValueError.self) { try QueuedAlert.queue(from: ["not an object"]) }
    }
}
