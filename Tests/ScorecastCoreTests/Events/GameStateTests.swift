import Foundation
import JSON
import Testing
@testable import ScorecastCore

@Suite struct GameStateTests {
    static let t0 = Date(timeIntervalSince1970: 1_764_450_000)

    static func event(_ seq: Int, _ kind: EventKind, _ board: ScoreboardUpdate = ScoreboardUpdate()) -> FeedEvent {
        FeedEvent(id: "e\(seq)", game: "g", seq: seq, occurredAt: t0.addingTimeInterval(Double(seq)), kind: kind, scoreboard: board)
    }

    @Test(arguments: [
        (EventKind.scheduled, GameStatus.scheduled, GameStatus.scheduled),
        (.scheduled, .live, .live),
        (.start, .scheduled, .live),
        (.start, .final, .live),
        (.score, .scheduled, .live),
        (.clock, .live, .live),
        (.stats, .suspended, .suspended),
        (.stats, .final, .final),
        (.card, .cancelled, .cancelled),
        (.videoReview, .scheduled, .live),
        (.suspended, .live, .suspended),
        (.resumed, .suspended, .live),
        (.final, .live, .final),
        (.cancelled, .scheduled, .cancelled),
    ])
    func statusFollowsTheKindTable(kind: EventKind, before: GameStatus, after: GameStatus) throws {
        var state = GameState.initial
        state.status = before
        let next = try #require(state.applying(Self.event(1, kind)).state)
        #expect(next.status == after)
    }

    @Test func partialScoreboardsMerge() throws {
        var state = GameState.initial
        let steps: [(FeedEvent, GameState)] = [
            (Self.event(1, .start, ScoreboardUpdate(home: 0, away: 0, period: .set("1H"), clock: .set("0'"), extra: ["corners": 0])),
             GameState(status: .live, homeScore: 0, awayScore: 0, period: "1H", clock: "0'", extra: ["corners": 0], appliedSeq: 1)),
            (Self.event(2, .score, ScoreboardUpdate(home: 1, extra: ["shots": 3])),
             GameState(status: .live, homeScore: 1, awayScore: 0, period: "1H", clock: "0'", extra: ["corners": 0, "shots": 3], appliedSeq: 2)),
            (Self.event(3, .period, ScoreboardUpdate(period: .set("HT"), clock: .clear, extra: ["corners": nil])),
             GameState(status: .live, homeScore: 1, awayScore: 0, period: "HT", clock: nil, extra: ["shots": 3], appliedSeq: 3)),
            (Self.event(5, .final, ScoreboardUpdate(away: 2)),
             GameState(status: .final, homeScore: 1, awayScore: 2, period: "HT", clock: nil, extra: ["shots": 3], appliedSeq: 5)),
        ]
        for (event, expected) in steps {
            state = try #require(state.applying(event).state)
            var withoutLast = state
            withoutLast.lastEvent = nil
            withoutLast.clockAnchor = nil
            withoutLast.updatedAt = nil
            withoutLast.shownAt = nil
            withoutLast.shownSeq = expected.shownSeq
            #expect(withoutLast == expected)
            #expect(state.lastEvent == LastEventSummary(event))
            #expect(state.updatedAt == event.occurredAt)
        }
    }

    @Test func routineKindsKeepTheLastNotablePlay() throws {
        let goal = FeedEvent(id: "e1", game: "g", seq: 1, occurredAt: Self.t0, kind: .score, scoreboard: ScoreboardUpdate(home: 1), team: .home, player: "Saka")
        var state = try #require(GameState.initial.applying(goal).state)
        for (seq, kind) in [(2, EventKind.clock), (3, .stats), (4, .scheduled)] {
            state = try #require(state.applying(Self.event(seq, kind)).state)
        }
        #expect(state.lastEvent == LastEventSummary(goal))
        #expect(state.updatedAt == Self.t0.addingTimeInterval(4))
        state = try #require(state.applying(Self.event(5, .substitution)).state)
        #expect(state.lastEvent?.kind == .substitution)
    }

    @Test(arguments: [5, 4, 1])
    func notNewerSeqIsStale(seq: Int) throws {
        let state = try #require(GameState.initial.applying(Self.event(5, .score, ScoreboardUpdate(home: 1))).state)
        #expect(state.applying(Self.event(seq, .score, ScoreboardUpdate(home: 9))) == .stale(appliedSeq: 5))
        #expect(state.applying(Self.event(6, .score, ScoreboardUpdate(home: 9))).state?.homeScore == 9)
    }

    @Test func roundTripsThroughStoredJSON() throws {
        var state = GameState.initial
        for event in [
            Self.event(1, .start, ScoreboardUpdate(period: .set("1H"), extra: ["possession": "home", "xg": 1.25, "var": true])),
            FeedEvent(id: "e2", game: "g", seq: 2, occurredAt: Self.t0.addingTimeInterval(0.5), kind: .score,
                      scoreboard: ScoreboardUpdate(home: 1, clock: .set("12'")), description: "Goal", team: .home, player: "Saka"),
        ] {
            state = try #require(state.applying(event).state)
            let text = try state.jsonValue.encoded()
            #expect(try GameState(jsonValue: JSONParser().parse(text)) == state)
        }
        #expect(try GameState(jsonValue: GameState.initial.jsonValue) == .initial)
    }

    @Test(arguments: [
        (#"{}"#, "status"),
        (#"{"status":"paused","homeScore":0,"awayScore":0,"extra":{},"appliedSeq":0}"#, "status"),
        (#"{"status":"live","homeScore":"0","awayScore":0,"extra":{},"appliedSeq":0}"#, "homeScore"),
        (#"{"status":"live","homeScore":0,"awayScore":0,"extra":{},"appliedSeq":0,"lastEvent":{"id":"x"}}"#, "lastEvent"),
    ])
    func refusesUnreadableStoredJSON(text: String, field: String) throws {
        let json = try JSONParser().parse(text)
        #expect(throws: StoredValueError(subject: "game state", problem: field)) { try GameState(jsonValue: json) }
    }
}
