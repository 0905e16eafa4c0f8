import Foundation
import JSON
import Testing
@testable import ScorecastCore

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
        let tick = try Self.update(2, .clock, home: 1)
        let merged = OutboxMerge.merge(pending: pending, update: tick, dueAt: Self.now.addingTimeInterval(10))
        #expect(merged.priority == .immediate)
        #expect(merged.payload.alert == goal.payload.alert)
        #expect(merged.payload.contentState == tick.payload.contentState)
        #expect(merged.payload.timestamp == tick.payload.timestamp)
        #expect(merged.body == (try merged.payload.encode(for: .broadcast)))
        #expect(merged.eventIDs == ["e1", "e2"])
        #expect(merged.coalesced == 1)
        #expect(merged.dueAt == Self.now)
        #expect(merged.enqueuedAt == Self.now)
        #expect(merged.isAlerting)
    }

    @Test func aNewerAlertReplacesTheOlderOne() throws {
        let first = try Self.update(1, .score, home: 1)
        let second = try Self.update(2, .score, home: 2)
        let merged = OutboxMerge.merge(pending: OutboxEntry(update: first, dueAt: Self.now, now: Self.now), update: second, dueAt: Self.now)
        #expect(merged.payload == second.payload)
        #expect(merged.body == second.body)
    }

    @Test func routineOverRoutineStaysRoutineAndKeepsTheEarlierDueTime() throws {
        let first = try Self.update(1, .clock, home: 0)
        let second = try Self.update(2, .clock, home: 0)
        var pending = OutboxEntry(update: first, dueAt: Self.now.addingTimeInterval(4), now: Self.now)
        pending.attempts = 3
        pending.notBefore = Self.now.addingTimeInterval(30)
        let merged = OutboxMerge.merge(pending: pending, update: second, dueAt: Self.now.addingTimeInterval(8))
        #expect(merged.priority == .opportunistic)
        #expect(merged.payload.alert == nil)
        #expect(merged.body == second.body)
        #expect(merged.dueAt == Self.now.addingTimeInterval(4))
        #expect(merged.attempts == 3)
        #expect(merged.claimableAt == Self.now.addingTimeInterval(30))
    }

    @Test func aPendingLaterTimestampIsNeverUndercut() throws {
        let pendingUpdate = try Self.update(1, .clock, home: 0, last: 1_900_000_000)
        let newer = try Self.update(2, .clock, home: 0)
        let merged = OutboxMerge.merge(pending: OutboxEntry(update: pendingUpdate, dueAt: Self.now, now: Self.now), update: newer, dueAt: Self.now)
        #expect(merged.payload.timestamp == 1_900_000_000)
        #expect(merged.body == (try merged.payload.encode(for: .broadcast)))
    }

    @Test func anInheritedAlertThatDoesNotFitIsDropped() throws {
        // Long team names make the goal's alert about 2.5 KB; the clock tick's own content is 4 KB.
        let longNames = GameInfo(sport: "soccer", homeName: String(repeating: "H", count: 400), awayName: String(repeating: "A", count: 400))
        let goal = try Self.update(1, .score, home: 1, description: String(repeating: "é", count: 280), game: longNames)
        var tick = try Self.update(2, .clock, home: 1)
        tick.payload.contentState = ["pad": .string(String(repeating: "x", count: 4_000))]
        tick.body = try tick.payload.encode(for: .broadcast)
        var withAlert = tick.payload
        withAlert.alert = goal.payload.alert
        #expect(throws: LiveActivityPayloadError.self) { try withAlert.encode(for: .broadcast) }
        let merged = OutboxMerge.merge(pending: OutboxEntry(update: goal, dueAt: Self.now, now: Self.now), update: tick, dueAt: Self.now)
        #expect(merged.payload == tick.payload, "the newer state is sent without the alert")
        #expect(merged.body == tick.body)
        #expect(merged.priority == .immediate)
    }

    @Test func eventIDsAreBounded() throws {
        var entry = OutboxEntry(update: try Self.update(1, .clock, home: 0), dueAt: Self.now, now: Self.now)
        for seq in 2...150 {
            entry = OutboxMerge.merge(pending: entry, update: try Self.update(seq, .clock, home: 0), dueAt: Self.now)
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
