import APNsCore
import Foundation
import JSON
import ScorecastActivity
import Testing
@testable import ScorecastCore

/// Folding a match as each sport plays it: the clock anchor, what counts as a visible change,
/// the last notable play, scorers and cards.
@Suite struct SportsFoldTests {
    static let kickOff = Date(timeIntervalSince1970: 1_764_450_000)

    struct Match {
        var state = GameState.initial
        var profile: SportProfile
        var notice = NoticePolicy()
        var seq = 0
        /// Whether each applied event changed what the Live Activity shows.
        var shown: [Bool] = []

        mutating func apply(
            _ kind: EventKind, at seconds: Double, _ board: ScoreboardUpdate = ScoreboardUpdate(), team: TeamSide? = nil,
            player: String? = nil, shortName: String? = nil, ownGoal: Bool? = nil, penalty: Bool? = nil, card: CardColour? = nil
        ) throws {
            seq += 1
            let event = FeedEvent(
                id: "e\(seq)", game: "g", seq: seq, occurredAt: SportsFoldTests.kickOff.addingTimeInterval(seconds), kind: kind,
                scoreboard: board, team: team, player: player, shortName: shortName, ownGoal: ownGoal, penalty: penalty, card: card)
            let next = try #require(state.applying(event, profile: profile, notice: notice).state)
            shown.append(next.shownSeq == seq)
            state = next
        }

        var content: ContentState { ContentStateRenderer.contentState(of: state, profile: profile, fallbackTime: .distantPast) }
    }

    @Test func footballClockRunsOnThePhoneAndTicksChangeNothing() throws {
        var match = Match(profile: .football)
        try match.apply(.start, at: 0, ScoreboardUpdate(period: .set("1H"), clock: .set("0'")))
        for minute in stride(from: 3, through: 42, by: 3) {
            // After `minute` whole minutes the feed is in the next one.
            try match.apply(.clock, at: Double(minute * 60), ScoreboardUpdate(clock: .set("\(minute + 1)'")))
        }
        // Only the start and the 10-minute refreshes (12', 24', 36': the first tick at least
        // 10 minutes after the last shown change) are worth a push; every other tick is not.
        let shownMinutes = match.shown.enumerated().filter(\.element).map { $0.offset * 3 }
        #expect(shownMinutes == [0, 12, 24, 36])
        let clock = try #require(match.content.clock)
        #expect(clock.running)
        #expect(clock.direction == .up)
        #expect(clock.periodStartedAt == Self.kickOff)
        #expect(clock.seconds == 0)
        #expect(clock.periodLength == 2700)
        #expect(clock.reading(at: Self.kickOff.addingTimeInterval(2000)) == 2000)
        #expect(clock.label == "43'")
        #expect(match.content.lastEvent?.kind == .start, "a clock tick keeps the last notable play")
    }

    @Test func aQuietStretchIsRefreshedBeforeItGoesStale() throws {
        var match = Match(profile: .football)
        try match.apply(.start, at: 0, ScoreboardUpdate(period: .set("1H"), clock: .set("0'")))
        for minute in stride(from: 1, through: 21, by: 1) {
            try match.apply(.clock, at: Double(minute * 60), ScoreboardUpdate(clock: .set("\(minute + 1)'")))
        }
        // The refresh interval is 10 minutes: minutes 10 and 20 go out, the rest do not.
        let shownMinutes = match.shown.enumerated().filter(\.element).map(\.offset)
        #expect(shownMinutes == [0, 10, 20])
    }

    @Test func aClockThatJumpsIsReanchored() throws {
        var match = Match(profile: .football)
        try match.apply(.start, at: 0, ScoreboardUpdate(period: .set("1H"), clock: .set("0'")))
        try match.apply(.clock, at: 300, ScoreboardUpdate(clock: .set("6'")))
        try match.apply(.clock, at: 360, ScoreboardUpdate(clock: .set("9'")))
        #expect(match.shown == [true, false, true])
        #expect(match.content.clock?.periodStartedAt == Self.kickOff.addingTimeInterval(360))
        #expect(match.content.clock?.seconds == 480)
    }

    @Test func goalsCardsAndBreaksAsAFanSeesThem() throws {
        var match = Match(profile: .football)
        try match.apply(.start, at: 0, ScoreboardUpdate(home: 0, away: 0, period: .set("1H"), clock: .set("0'")))
        try match.apply(.score, at: 720, ScoreboardUpdate(home: 1, clock: .set("12'")), team: .home, player: "Marcus Bell", penalty: true)
        try match.apply(.card, at: 1500, ScoreboardUpdate(clock: .set("25'")), team: .away, player: "Lionel Andrés Messi Cuccittini", shortName: "Messi", card: .yellow)
        try match.apply(.score, at: 2400, ScoreboardUpdate(away: 1, clock: .set("40'")), team: .away, player: "Merih Demiral", ownGoal: true)
        try match.apply(.card, at: 2760, ScoreboardUpdate(clock: .set("45+1'"), addedTime: .set(2)), team: .away, player: "Messi", card: .secondYellow)
        try match.apply(.period, at: 2820, ScoreboardUpdate(period: .set("HT"), clock: .set("45+3'")))
        let halfTime = match.content
        #expect(halfTime.scorers == [
            .init(team: .home, player: "Marcus Bell", minute: 12, penalty: true),
            .init(team: .away, player: "Merih Demiral", minute: 40, ownGoal: true),
        ])
        #expect(halfTime.cards == [
            .init(team: .away, player: "Messi", minute: 25, colour: .yellow),
            .init(team: .away, player: "Messi", minute: 45, addedMinute: 1, colour: .secondYellow),
        ])
        #expect(halfTime.redCards == .init(home: 0, away: 1))
        let clock = try #require(halfTime.clock)
        #expect(!clock.running)
        #expect(clock.stoppedAt == Self.kickOff.addingTimeInterval(2820))
        #expect(clock.seconds == 2820)
        #expect(clock.addedMinutes == nil, "a new period clears added time")
        #expect(halfTime.lastEvent?.kind == .period)
        #expect(match.shown == [true, true, true, true, true, true])

        try match.apply(.stats, at: 2850, ScoreboardUpdate(extra: ["shotsHome": 9]))
        try match.apply(.period, at: 3720, ScoreboardUpdate(period: .set("2H"), clock: .set("45'")))
        let secondHalf = try #require(match.content.clock)
        #expect(secondHalf.running)
        #expect(secondHalf.seconds == 2700)
        #expect(secondHalf.periodStartedAt == Self.kickOff.addingTimeInterval(3720))
        #expect(match.content.lastEvent?.kind == .period, "stats keep the last notable play")
        #expect(match.shown.suffix(2) == [false, true], "a stat half a minute after the last update waits; the new period goes at once")
        #expect(match.content.extra["shotsHome"] == "9", "and carries the stat")

        try match.apply(.final, at: 9000, ScoreboardUpdate(period: .set("FT"), clock: .set("90+4'")))
        #expect(match.content.clock?.running == false)
        #expect(match.content.status == .final)
    }

    @Test func eventsAtTheSameInstantAreJudgedOneByOne() throws {
        // Every change of statistics noticed at once, so that each event's own change counts.
        var match = Match(profile: .football, notice: NoticePolicy(statisticsInterval: 0))
        try match.apply(.start, at: 0, ScoreboardUpdate(period: .set("1H"), clock: .set("0'")))
        try match.apply(.stats, at: 60, ScoreboardUpdate(extra: ["corners": 1]))
        try match.apply(.stats, at: 60, ScoreboardUpdate(extra: ["corners": 2]))
        try match.apply(.clock, at: 60, ScoreboardUpdate(clock: .set("2'")))
        #expect(match.shown == [true, true, true, false])
    }

    @Test func shootOutKicksAreNotScorers() throws {
        var match = Match(profile: .football)
        try match.apply(.start, at: 0, ScoreboardUpdate(period: .set("ET2"), clock: .set("105'")))
        try match.apply(.period, at: 60, ScoreboardUpdate(period: .set("PEN"), shootout: .set(.init(home: 0, away: 0))))
        try match.apply(.score, at: 120, ScoreboardUpdate(shootout: .set(.init(home: 1, away: 0))), team: .home, player: "Bell")
        #expect(match.content.scorers.isEmpty)
        #expect(match.content.shootout == .init(home: 1, away: 0))
        #expect(match.shown == [true, true, true])
    }

    @Test func basketballClockCountsDownOnlyWhileTheFeedRunsIt() throws {
        var match = Match(profile: .basketball)
        try match.apply(.start, at: 0, ScoreboardUpdate(period: .set("Q1"), clock: .set("12:00"), clockRunning: true))
        try match.apply(.score, at: 30, ScoreboardUpdate(home: 2, clock: .set("11:30")), team: .home)
        try match.apply(.clock, at: 35, ScoreboardUpdate(clockRunning: false, clockSeconds: 685))
        try match.apply(.clock, at: 80, ScoreboardUpdate(clockSeconds: 685))
        try match.apply(.clock, at: 90, ScoreboardUpdate(clockRunning: true))
        #expect(match.shown == [true, true, true, false, true])
        let clock = try #require(match.content.clock)
        #expect(clock.direction == .down)
        #expect(clock.running)
        #expect(clock.seconds == 685)
        #expect(clock.periodStartedAt == Self.kickOff.addingTimeInterval(90))
        #expect(clock.reading(at: Self.kickOff.addingTimeInterval(100)) == 675)
        #expect(match.content.scorers.isEmpty, "basketball lists no scorers")
        #expect(match.content.redCards == nil)
    }

    @Test func baseballHasNoClock() throws {
        var match = Match(profile: .baseball)
        try match.apply(.start, at: 0, ScoreboardUpdate(period: .set("Top 1st")))
        try match.apply(.score, at: 600, ScoreboardUpdate(away: 1), team: .away, player: "Judge")
        try match.apply(.period, at: 900, ScoreboardUpdate(period: .set("Mid 1st")))
        #expect(match.content.clock == nil)
        #expect(match.content.lastEvent?.player == "Judge" || match.content.lastEvent?.kind == .period)
        #expect(match.content.lastEvent?.minute == nil)
    }

    @Test func newStateMembersSurviveStorage() throws {
        var match = Match(profile: .football)
        try match.apply(.start, at: 0, ScoreboardUpdate(period: .set("1H"), clock: .set("0'")))
        try match.apply(.score, at: 720, ScoreboardUpdate(home: 1, clock: .set("12'"), addedTime: .set(3), shootout: .set(.init(home: 0, away: 0))), team: .home, player: "Marcus Bell", shortName: "Bell", penalty: true)
        try match.apply(.card, at: 800, ScoreboardUpdate(clock: .set("13'")), team: .away, player: "X", card: .red)
        try match.apply(.clock, at: 900, ScoreboardUpdate(clock: .set("15'")))
        let stored = try JSONParser().parse(try match.state.jsonValue.encoded())
        #expect(try GameState(jsonValue: stored) == match.state)
        // A state stored before these members existed still reads.
        let old = try JSONParser().parse(#"{"status":"live","homeScore":1,"awayScore":0,"extra":{},"appliedSeq":3,"clock":"12'","lastEvent":{"id":"e","kind":"score","occurredAt":1764450720}}"#)
        let read = try GameState(jsonValue: old)
        #expect(read.updatedAt == Date(timeIntervalSince1970: 1_764_450_720))
        #expect(read.scorers.isEmpty && read.redCards == .init(home: 0, away: 0))
    }
}

/// Corrections: a goal disallowed by its event id, a score that goes down.
@Suite struct CorrectionTests {
    typealias Match = SportsFoldTests.Match

    @Test func aDisallowedGoalLeavesTheListAndTheScoreAndAlertsAsTheGoalDid() throws {
        var match = Match(profile: .football)
        try match.apply(.start, at: 0, ScoreboardUpdate(home: 0, away: 0, period: .set("1H"), clock: .set("1'")))
        try match.apply(.score, at: 600, ScoreboardUpdate(home: 1), team: .home, player: "Bukayo Saka", shortName: "Saka")
        try match.apply(.score, at: 900, ScoreboardUpdate(home: 2), team: .home, player: "Martin Ødegaard", shortName: "Ødegaard")
        let disallow = FeedEvent(
            id: "e4", game: "g", seq: 4, occurredAt: SportsFoldTests.kickOff.addingTimeInterval(960), kind: .videoReview,
            team: .home, disallows: "e2")
        match.state = try #require(match.state.applying(disallow, profile: .football).state)
        #expect(match.content.scorers.map(\.player) == ["Ødegaard"], "the disallowed scorer leaves the lock screen")
        #expect(match.content.homeScore == 1, "without a corrected score the goal's team loses it")
        #expect(match.content.lastEvent?.kind == .videoReview)
        #expect(match.state.correction == "e4")
        // The phone is told at the goal's priority, on the standard and the light tier alike.
        #expect(PriorityPolicy().isAlerting(disallow) && PriorityPolicy.lightTier.isAlerting(disallow))
        let update = try LiveActivityRenderer().render(
            state: match.state, game: GameInfo(sport: "football", homeName: "Arsenal", awayName: "Chelsea"), event: disallow,
            channelLastTimestamp: nil)
        #expect(update.priority == .immediate)
        #expect(update.payload.alert == LiveActivityAlert(
            title: .localized(key: "GOAL_DISALLOWED_TEAM_TITLE", arguments: ["Arsenal"]),
            body: .localized(key: "SCORELINE_BODY", arguments: ["Arsenal", "1", "0", "Chelsea"]), sound: "default"))

        // A corrected score given by the feed wins; an unknown goal id changes nothing.
        let withScore = FeedEvent(
            id: "e5", game: "g", seq: 5, occurredAt: SportsFoldTests.kickOff.addingTimeInterval(990), kind: .videoReview,
            scoreboard: ScoreboardUpdate(home: 0), disallows: "e3")
        let corrected = try #require(match.state.applying(withScore, profile: .football).state)
        #expect(corrected.homeScore == 0 && corrected.scorers.isEmpty)
        let unknown = FeedEvent(id: "e6", game: "g", seq: 6, occurredAt: SportsFoldTests.kickOff.addingTimeInterval(999), kind: .videoReview, disallows: "nope")
        let unchanged = try #require(corrected.applying(unknown, profile: .football).state)
        #expect(unchanged.homeScore == 0 && unchanged.correction == "e5")
    }

    @Test func aLowerScoreAfterFullTimeIsACorrectionNeverAGoal() throws {
        var match = Match(profile: .football)
        try match.apply(.start, at: 0, ScoreboardUpdate(home: 0, away: 0, period: .set("1H")))
        try match.apply(.score, at: 600, ScoreboardUpdate(home: 1), team: .home, player: "Saka")
        try match.apply(.score, at: 900, ScoreboardUpdate(away: 1), team: .away, player: "Palmer")
        try match.apply(.final, at: 5700, ScoreboardUpdate(period: .set("FT")))
        let fix = FeedEvent(
            id: "fix", game: "g", seq: 5, occurredAt: SportsFoldTests.kickOff.addingTimeInterval(6000), kind: .score,
            scoreboard: ScoreboardUpdate(away: 0), team: .away, player: "Palmer")
        match.state = try #require(match.state.applying(fix, profile: .football).state)
        #expect(match.content.awayScore == 0 && match.content.status == .final)
        #expect(match.content.scorers.map(\.player) == ["Saka", "Palmer"], "no scorer is added for a correction")
        #expect(match.content.lastEvent?.kind == .final, "the last play stays")
        let update = try LiveActivityRenderer().render(
            state: match.state, game: GameInfo(sport: "football", homeName: "Arsenal", awayName: "Chelsea"), event: fix,
            channelLastTimestamp: nil)
        #expect(update.payload.alert == nil && update.priority == .opportunistic, "never announced as a goal")
    }

    @Test func disallowsOnlyAppliesToAReviewAndSurvivesStorage() throws {
        let body = #"{"id":"v","game":"g","seq":3,"occurredAt":"2025-11-29T21:45:00Z","kind":"score","disallows":"e2"}"#
        #expect(throws: EventValidationError(errors: [FieldError(path: "disallows", message: "only applies to kind var, not score")])) {
            try FeedEventValidator().events(fromBody: Array(body.utf8), now: Date(timeIntervalSince1970: 1_764_453_600))
        }
        let review = try FeedEventValidator().event(
            from: try JSONParser().parse(#"{"id":"v","game":"g","seq":3,"occurredAt":"2025-11-29T21:45:00Z","kind":"var","disallows":"e2"}"#),
            now: Date(timeIntervalSince1970: 1_764_453_600))
        #expect(review.disallows == "e2")
        #expect(try FeedEventValidator().event(from: review.jsonValue, now: Date(timeIntervalSince1970: 1_764_453_600)) == review)
        var match = Match(profile: .football)
        try match.apply(.score, at: 600, ScoreboardUpdate(home: 1), team: .home, player: "Saka")
        let stored = try GameState(jsonValue: try JSONParser().parse(try match.state.jsonValue.encoded()))
        #expect(stored == match.state && stored.scorerIDs == ["e1"])
    }
}
