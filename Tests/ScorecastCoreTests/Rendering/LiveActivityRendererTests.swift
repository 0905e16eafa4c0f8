import APNsCore
import Foundation
import Testing
@testable import ScorecastCore

@Suite struct LiveActivityRendererTests {
    static let game = GameInfo(sport: "Soccer", homeName: "Arsenal", awayName: "Chelsea")
    static let occurred = Date(timeIntervalSince1970: 1_764_452_700.9)

    static func fold(_ events: [FeedEvent]) -> GameState {
        events.reduce(GameState.initial) { state, event in state.applying(event).state ?? state }
    }

    static func event(_ kind: EventKind, seq: Int = 1, alert: Bool? = nil, board: ScoreboardUpdate = ScoreboardUpdate(home: 1)) -> FeedEvent {
        FeedEvent(id: "e\(seq)", game: "g", seq: seq, occurredAt: occurred, kind: kind, scoreboard: board,
                  description: "Curled in", team: .home, player: "Saka", alert: alert)
    }

    @Test func rendersAGoalLikeApnsMdSection4() throws {
        let goal = Self.event(.score)
        let renderer = LiveActivityRenderer(settings: RenderSettings(staleness: StalenessPolicy(defaultSeconds: 900, bySport: ["soccer": 600])))
        let update = try renderer.render(state: Self.fold([goal]), game: Self.game, event: goal, channelLastTimestamp: nil)
        #expect(update.priority == .immediate)
        #expect(update.isAlerting)
        #expect(update.eventID == "e1")
        #expect(update.timestamp == 1_764_452_700)
        #expect(String(decoding: update.body, as: UTF8.self) == #"{"aps":{"alert":{"body":{"loc-args":["Arsenal","1","0","Chelsea"],"loc-key":"SCORELINE_BODY"},"sound":"default","title":{"loc-args":["Saka","Arsenal"],"loc-key":"SCORE_PLAYER_TITLE"}},"#
            + #""content-state":{"awayScore":0,"cards":[],"extra":{},"homeScore":1,"lastEvent":{"kind":"score","occurredAt":786145500.9,"player":"Saka","team":"home","text":"Curled in"},"redCards":{"away":0,"home":0},"scorers":[{"ownGoal":false,"penalty":false,"player":"Saka","team":"home"}],"status":"live","updatedAt":786145500.9,"version":2},"event":"update","relevance-score":100,"stale-date":1764453300,"timestamp":1764452700}}"#)
    }

    @Test(arguments: [
        (EventKind.clock, nil as Bool?, BroadcastPriority.opportunistic),
        (.stats, nil, .opportunistic),
        (.card, nil, .opportunistic),
        (.card, true, .immediate),
        (.score, false, .opportunistic),
        (.score, nil, .immediate),
        (.start, nil, .immediate),
        (.final, nil, .immediate),
    ])
    func routineEventsAreQuietAndAlertingOnesAlert(kind: EventKind, alert: Bool?, priority: BroadcastPriority) throws {
        let event = Self.event(kind, alert: alert)
        let update = try LiveActivityRenderer().render(state: Self.fold([event]), game: Self.game, event: event, channelLastTimestamp: nil)
        #expect(update.priority == priority)
        #expect((update.payload.alert != nil) == (priority == .immediate))
        #expect(update.isAlerting == (priority == .immediate))
    }

    @Test(arguments: [EventKind.final, .cancelled])
    func theEndEndsWithADismissalDate(kind: EventKind) throws {
        let event = Self.event(kind)
        let renderer = LiveActivityRenderer(settings: RenderSettings(dismissalDelay: 600, relevance: .standard))
        let update = try renderer.render(state: Self.fold([event]), game: Self.game, event: event, channelLastTimestamp: nil)
        #expect(update.payload.event == .end)
        #expect(update.payload.dismissalDate == 1_764_453_300)
        #expect(update.payload.staleDate == nil)
        #expect(update.payload.relevanceScore == RelevancePolicy.standard.score(for: kind == .final ? .final : .cancelled))
    }

    @Test(arguments: [
        (nil as Int?, 1_764_452_700),
        (1_764_452_000, 1_764_452_700),
        (1_764_452_700, 1_764_452_700),
        (1_764_460_000, 1_764_460_000),
    ])
    func timestampNeverGoesBackwards(last: Int?, expected: Int) throws {
        let event = Self.event(.clock)
        let update = try LiveActivityRenderer().render(state: Self.fold([event]), game: Self.game, event: event, channelLastTimestamp: last)
        #expect(update.timestamp == expected)
        #expect(update.payload.staleDate == 1_764_453_600)
    }

    @Test func theTimestampIsNeverAheadOfTheServersClock() throws {
        // A feed whose clock runs ten minutes fast: the phone must not be told it is 10 minutes later.
        let ahead = FeedEvent(id: "e1", game: "g", seq: 1, occurredAt: Self.occurred.addingTimeInterval(600), kind: .clock,
                              scoreboard: ScoreboardUpdate(home: 1))
        let now = Self.occurred
        let update = try LiveActivityRenderer().render(
            state: Self.fold([ahead]), game: Self.game, event: ahead, channelLastTimestamp: nil, receivedAt: now)
        #expect(update.timestamp == 1_764_452_700)
        // Still never below what the channel was already sent.
        let floored = try LiveActivityRenderer().render(
            state: Self.fold([ahead]), game: Self.game, event: ahead, channelLastTimestamp: 1_764_452_800, receivedAt: now)
        #expect(floored.timestamp == 1_764_452_800)
    }

    @Test func aFinalThatArrivesLateStaysForTheWholeDismissalDelay() throws {
        let final = Self.event(.final)
        let renderer = LiveActivityRenderer(settings: RenderSettings(dismissalDelay: 600))
        let arrived = Self.occurred.addingTimeInterval(3_600)
        let update = try renderer.render(
            state: Self.fold([final]), game: Self.game, event: final, channelLastTimestamp: nil, receivedAt: arrived)
        #expect(update.payload.dismissalDate == 1_764_452_700 + 3_600 + 600)
        #expect(update.timestamp == 1_764_452_700, "the play still happened when the feed says")
    }

    @Test func appliesTheAppsMappingDatesAndPlainAlerts() throws {
        let settings = RenderSettings(
            mapping: try ContentStateMapping(renames: ["homeScore": "home"], omitted: ["lastEvent", "extra"]),
            dateEncoding: .unixSeconds, alertStyle: .plainText, alertSound: nil
        )
        let goal = Self.event(.score)
        let update = try LiveActivityRenderer(settings: settings).render(state: Self.fold([goal]), game: Self.game, event: goal, channelLastTimestamp: nil)
        #expect(try update.payload.contentState.encodedString() == #"{"awayScore":0,"cards":[],"home":1,"redCards":{"away":0,"home":0},"scorers":[{"ownGoal":false,"penalty":false,"player":"Saka","team":"home"}],"status":"live","updatedAt":1764452700,"version":2}"#)
        #expect(update.payload.alert == LiveActivityAlert(title: .plain("Saka scores for Arsenal"), body: .plain("Arsenal 1–0 Chelsea")))
    }

    @Test func contentOverTheBudgetIsFittedNotRefused() throws {
        var state = Self.fold([Self.event(.stats)])
        for index in 0..<150 { state.extra["key\(index)"] = .string(String(repeating: "é", count: 24)) }
        let update = try LiveActivityRenderer().render(state: state, game: Self.game, event: Self.event(.stats), channelLastTimestamp: nil)
        #expect(try update.payload.contentState.encoded().count <= ContentStateFit.budget)
        #expect(update.payload.contentState["extra"] == [:], "extra, cut then dropped, gives way before the score")
        #expect(update.payload.contentState["homeScore"] == 1)
        let fitted = try LiveActivityRenderer().fittedContentState(state: state, game: Self.game, occurredAt: Self.occurred)
        #expect(fitted.steps == [.cutTexts, .droppedExtra])
    }

    @Test func snapshotIsRoutineAtTheLastEventTime() throws {
        let state = Self.fold([Self.event(.score)])
        let update = try LiveActivityRenderer().renderSnapshot(state: state, game: Self.game, now: Date(timeIntervalSince1970: 2_000_000_000), channelLastTimestamp: nil)
        #expect(update.priority == .opportunistic)
        #expect(update.payload.alert == nil)
        #expect(update.timestamp == 1_764_452_700)
        #expect(update.eventID == nil)
        let empty = try LiveActivityRenderer().renderSnapshot(state: .initial, game: Self.game, now: Date(timeIntervalSince1970: 2_000_000_000), channelLastTimestamp: nil)
        #expect(empty.timestamp == 2_000_000_000)
    }

    @Test func gameInfoFallsBackToHomeAndAway() {
        let info = GameInfo(sport: "nba", homeName: nil, awayName: "")
        #expect(info.homeName == "Home")
        #expect(info.awayName == "Away")
        #expect(info.name(of: .away) == "Away")
    }
}
