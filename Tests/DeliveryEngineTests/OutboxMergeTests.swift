import APNsCore
import Foundation
import JSON
import ScorecastCore
import Testing
@testable import DeliveryEngine

@Suite struct OutboxMergeTests {
    static let now = Date(timeIntervalSince1970: 1_764_452_700)
    static let game = GameInfo(sport: "soccer", homeName: "Arsenal", awayName: "Chelsea")

    /// Renders event number `seq` of a running game, like ingest does.
    static func update(_ seq: Int, _ kind: EventKind, home: Int, last: Int? = nil, description: String? = nil, game: GameInfo = game) throws -> RenderedUpdate {
        let event = FeedEvent(id: "e\(seq)", game: "g", seq: seq, occurredAt: now.addingTimeInterval(Double(seq)), kind: kind,
                              scoreboard: ScoreboardUpdate(home: home, clock: .set("\(seq)'")), description: description)
        let state = GameState(status: .live, homeScore: 0, awayScore: 0, appliedSeq: seq - 1).applying(event).state ?? .initial
        return try LiveActivityRenderer().render(state: state, game: game, event: event, channelLastTimestamp: last)
    }

    @Test func aNewerRoutineUpdateKeepsThePendingGoalsPriorityAndAlert() throws {
        let goal = try Self.update(1, .score, home: 1)
        let pending = OutboxEntry(update: goal, dueAt: Self.now, now: Self.now)
        #expect(pending.payload.alert == nil, "the state is stored without its alert")
        #expect(pending.alerts.map(\.key) == ["e1"])
        let tick = try Self.update(2, .clock, home: 1)
        let merged = OutboxMerge.merge(pending: pending, update: tick, dueAt: Self.now.addingTimeInterval(10), now: Self.now)
        #expect(merged.priority == .immediate)
        #expect(merged.alerts.map(\.alert) == [try #require(goal.payload.alert)])
        #expect(merged.payload.alert == nil)
        #expect(merged.payload.contentState == tick.payload.contentState)
        #expect(merged.payload.timestamp == tick.payload.timestamp)
        #expect(merged.body == (try merged.payload.encode(for: .broadcast)))
        #expect(merged.eventIDs == ["e1", "e2"])
        #expect(merged.coalesced == 1)
        #expect(merged.dueAt == Self.now)
        #expect(merged.enqueuedAt == Self.now)
        #expect(merged.isAlerting)
    }

    @Test func twoAlertsAreBothQueuedInEventOrderBesideTheNewestState() throws {
        let first = try Self.update(1, .score, home: 1)
        let card = try Self.update(2, .penalty, home: 1)
        let second = try Self.update(3, .score, home: 2)
        var entry = OutboxEntry(update: first, dueAt: Self.now, now: Self.now)
        entry = OutboxMerge.merge(pending: entry, update: card, dueAt: Self.now, now: Self.now.addingTimeInterval(0.005))
        entry = OutboxMerge.merge(pending: entry, update: second, dueAt: Self.now, now: Self.now.addingTimeInterval(0.010))
        #expect(entry.alerts.map(\.key) == ["e1", "e2", "e3"])
        #expect(entry.alerts.map(\.alert) == [first, card, second].compactMap(\.payload.alert))
        #expect(entry.alerts.map(\.queuedAt) == [Self.now, Self.now.addingTimeInterval(0.005), Self.now.addingTimeInterval(0.010)])
        var state = second.payload
        state.alert = nil
        #expect(entry.payload == state, "one state: the newest")
        #expect(entry.alertsDropped == 0)
    }

    @Test func theAlertQueueIsBoundedAndCountsWhatItDrops() throws {
        var entry = OutboxEntry(update: try Self.update(1, .score, home: 1), dueAt: Self.now, now: Self.now)
        for seq in 2...(OutboxEntry.maximumAlerts + 3) {
            entry = OutboxMerge.merge(pending: entry, update: try Self.update(seq, .score, home: seq), dueAt: Self.now, now: Self.now)
        }
        #expect(entry.alerts.count == OutboxEntry.maximumAlerts)
        #expect(entry.alerts.first?.key == "e4")
        #expect(entry.alertsDropped == 3)
    }

    @Test func aRowStoredWithItsAlertInThePayloadQueuesItFirst() throws {
        let goal = try Self.update(1, .score, home: 1)
        let legacy = OutboxEntry(payload: goal.payload, body: goal.body, priority: .immediate, eventIDs: ["e1"], dueAt: Self.now, enqueuedAt: Self.now)
        let merged = OutboxMerge.merge(pending: legacy, update: try Self.update(2, .score, home: 2), dueAt: Self.now, now: Self.now)
        #expect(merged.alerts.map(\.key) == ["e1", "e2"])
        #expect(merged.payload.alert == nil)
    }

    @Test func routineOverRoutineStaysRoutineKeepsTheEarlierDueTimeAndResetsTheBackoff() throws {
        let first = try Self.update(1, .clock, home: 0)
        let second = try Self.update(2, .clock, home: 0)
        var pending = OutboxEntry(update: first, dueAt: Self.now.addingTimeInterval(4), now: Self.now)
        pending.attempts = 3
        pending.notBefore = Self.now.addingTimeInterval(30)
        let merged = OutboxMerge.merge(pending: pending, update: second, dueAt: Self.now.addingTimeInterval(8), now: Self.now)
        #expect(merged.priority == .opportunistic)
        #expect(merged.payload.alert == nil)
        #expect(merged.body == second.body)
        #expect(merged.dueAt == Self.now.addingTimeInterval(4))
        #expect(merged.attempts == 0, "retry state belongs to the attempt, not to the newer content")
        #expect(merged.notBefore == nil)
        #expect(merged.claimableAt == Self.now.addingTimeInterval(4))
    }

    @Test func aPendingLaterTimestampIsNeverUndercut() throws {
        let pendingUpdate = try Self.update(1, .clock, home: 0, last: 1_900_000_000)
        let newer = try Self.update(2, .clock, home: 0)
        let merged = OutboxMerge.merge(pending: OutboxEntry(update: pendingUpdate, dueAt: Self.now, now: Self.now), update: newer, dueAt: Self.now, now: Self.now)
        #expect(merged.payload.timestamp == 1_900_000_000)
        #expect(merged.body == (try merged.payload.encode(for: .broadcast)))
    }

    @Test func eventIDsAreBounded() throws {
        var entry = OutboxEntry(update: try Self.update(1, .clock, home: 0), dueAt: Self.now, now: Self.now)
        for seq in 2...150 {
            entry = OutboxMerge.merge(pending: entry, update: try Self.update(seq, .clock, home: 0), dueAt: Self.now, now: Self.now)
        }
        #expect(entry.eventIDs.count == OutboxEntry.maximumEventIDs)
        #expect(entry.eventIDs.last == "e150")
        #expect(entry.eventIDs.first == "e51")
        #expect(entry.coalesced == 149)
    }

    @Test func storedPayloadsReadBack() throws {
        for update in [try Self.update(1, .score, home: 1, description: "Goal"), try Self.update(2, .clock, home: 1)] {
            let stored = try JSONParser().parse(update.body)
            let read = try LiveActivityPayload(jsonValue: stored)
            #expect(try read.encode(for: .broadcast) == update.body)
        }
    }
}
