import Foundation
import JSON
import Testing
@testable import ScorecastCore

/// What a fan would notice: plays at once, statistics at their cadence, the newest statistics
/// with every update.
@Suite struct NoticePolicyTests {
    static let kickOff = Date(timeIntervalSince1970: 1_764_450_000)

    struct Match {
        var notice: NoticePolicy
        var profile = SportProfile.football
        var state = GameState.initial
        var seq = 0
        /// Whether each applied event was noticed (``GameState/shownSeq`` moved to it).
        var noticed: [Bool] = []

        init(notice: NoticePolicy = NoticePolicy(), profile: SportProfile = .football) {
            self.notice = notice
            self.profile = profile
        }

        mutating func apply(_ kind: EventKind, at seconds: Double, _ board: ScoreboardUpdate = ScoreboardUpdate(), card: CardColour? = nil) throws {
            seq += 1
            let event = FeedEvent(
                id: "e\(seq)", game: "g", seq: seq, occurredAt: NoticePolicyTests.kickOff.addingTimeInterval(seconds), kind: kind,
                scoreboard: board, team: card == nil ? nil : .away, player: card == nil ? nil : "Okafor", card: card)
            state = try #require(state.applying(event, profile: profile, notice: notice).state)
            noticed.append(state.shownSeq == seq)
        }

        mutating func kickOff() throws {
            try apply(.start, at: 0, ScoreboardUpdate(home: 0, away: 0, period: .set("1H"), clock: .set("1'")))
        }
    }

    static func possession(_ home: Int) -> ScoreboardUpdate {
        ScoreboardUpdate(extra: ["possessionHome": .integer(home), "possessionAway": .integer(100 - home)])
    }

    @Test func statisticsWaitForTheCadenceThenGoWithTheNextEvent() throws {
        var match = Match(notice: NoticePolicy(statisticsInterval: 120))
        try match.kickOff()
        try match.apply(.stats, at: 30, Self.possession(55))
        try match.apply(.stats, at: 90, Self.possession(53))
        // Nothing new in itself, but the statistics the phone shows are two minutes old.
        try match.apply(.clock, at: 121, ScoreboardUpdate(clock: .set("3'")))
        try match.apply(.stats, at: 130, Self.possession(52))
        #expect(match.noticed == [true, false, false, true, false])
        #expect(match.state.shownExtra["possessionHome"] == .integer(53), "the update at 2:01 carries the newest statistics")
        #expect(match.state.shownAt == Self.kickOff.addingTimeInterval(121))
    }

    @Test func aPlayGoesAtOnceAndCarriesTheStatisticsThatWaited() throws {
        var match = Match(notice: NoticePolicy(statisticsInterval: 120))
        try match.kickOff()
        try match.apply(.stats, at: 30, Self.possession(55))
        try match.apply(.card, at: 40, card: .yellow)
        try match.apply(.stats, at: 50, Self.possession(56))
        #expect(match.noticed == [true, false, true, false])
        #expect(match.state.shownExtra["possessionHome"] == .integer(55))
        // The cadence counts from the card's update, which carried the statistics.
        try match.apply(.stats, at: 159, Self.possession(57))
        try match.apply(.stats, at: 160, Self.possession(58))
        #expect(match.noticed.suffix(2) == [false, true])
    }

    @Test func statisticsThatChangeNothingShownAreNeverNoticedBeforeTheRefresh() throws {
        var match = Match(notice: NoticePolicy(statisticsInterval: 120))
        var start = Self.possession(50)
        start.period = .set("1H")
        try match.apply(.start, at: 0, start)
        try match.apply(.stats, at: 200, Self.possession(50))
        try match.apply(.stats, at: 400, Self.possession(50))
        #expect(match.noticed == [true, false, false], "possession 50–50 is what the phone shows already")
        try match.apply(.stats, at: 600, Self.possession(50))
        #expect(match.noticed.last == true, "football's ten-minute refresh")
    }

    @Test func valuesAnotherKindBringsGoWithItsPlay() throws {
        var match = Match(notice: NoticePolicy(statisticsInterval: 120), profile: .baseball)
        try match.apply(.start, at: 0, ScoreboardUpdate(period: .set("Top 1st")))
        try match.apply(.clock, at: 20, ScoreboardUpdate(extra: ["outs": 1]))
        try match.apply(.stats, at: 40, ScoreboardUpdate(extra: ["pitches": 9]))
        #expect(match.noticed == [true, true, false])
    }

    @Test func aZeroIntervalNoticesEveryChangeOfStatistics() throws {
        var match = Match(notice: NoticePolicy(statisticsInterval: 0))
        try match.kickOff()
        try match.apply(.stats, at: 2, Self.possession(55))
        try match.apply(.stats, at: 4, Self.possession(55))
        try match.apply(.stats, at: 6, Self.possession(54))
        // A feed whose time goes back still gets its change pushed.
        try match.apply(.stats, at: 5, Self.possession(53))
        #expect(match.noticed == [true, true, false, true, true])
        #expect(NoticePolicy(statisticsInterval: -5).statisticsInterval == 0)
    }

    @Test func theStatisticsShownSurviveStorage() throws {
        var match = Match(notice: NoticePolicy(statisticsInterval: 120))
        try match.kickOff()
        try match.apply(.stats, at: 30, Self.possession(60))
        let stored = try GameState(jsonValue: match.state.jsonValue)
        #expect(stored == match.state)
        #expect(stored.shownExtra.isEmpty && stored.extra["possessionHome"] == .integer(60))
        // A state stored before the member existed reads as showing its statistics.
        guard case .object(var members) = match.state.jsonValue else { Issue.record("not an object"); return }
        members["shownExtra"] = nil
        #expect(try GameState(jsonValue: .object(members)).shownExtra == match.state.extra)
    }
}
