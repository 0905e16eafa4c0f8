import Foundation
import JSON
import Testing
import ScorecastActivity
@testable import ScorecastCore

/// The teams' codes and colours a feed sends: checked by the registration's rules, folded into
/// the game's state part by part (newest event wins), stored and read back.
@Suite struct FeedTeamIdentityTests {
    static let now = Date(timeIntervalSince1970: 1_764_453_600)

    static func body(seq: Int = 1, kind: String = "scheduled", teams: String) -> String {
        #"{"id":"e\#(seq)","game":"g","seq":\#(seq),"occurredAt":"2025-11-29T21:45:00Z","kind":"\#(kind)","teams":\#(teams)}"#
    }

    static func validate(_ text: String) throws -> ValidatedEvents {
        try FeedEventValidator().validate(try JSONParser().parse(Array(text.utf8)), now: now)
    }

    @Test func codesAndColoursAreNormalisedAndUnknownPartsIgnored() throws {
        let validated = try Self.validate(Self.body(teams: """
            {"home": {"code": "ars", "primaryColour": "#ef0107", "secondaryColour": "FFFFFF", "crest": "ars.png"},
             "away": {"code": "S04"}, "venue": "x"}
            """))
        #expect(validated.events.first?.teams == [
            .home: TeamIdentity(code: "ARS", primaryColour: "#EF0107", secondaryColour: "#FFFFFF"),
            .away: TeamIdentity(code: "S04"),
        ])
        #expect(validated.ignoredFields == ["teams.venue", "teams.home.crest"])
    }

    @Test(arguments: [
        (#"{"home": {"code": "ARSE"}}"#, "teams.home.code", #"must be 3 letters or digits (ARS, S04), got "ARSE""#),
        (#"{"home": {"code": "ßA"}}"#, "teams.home.code", #"must be 3 letters or digits (ARS, S04), got "ßA""#),
        (#"{"away": {"code": 7}}"#, "teams.away.code", "must be 3 letters or digits (ARS, S04), got integer"),
        (#"{"away": {"primaryColour": "red"}}"#, "teams.away.primaryColour", #"must be a colour #RRGGBB (#EF0107), got "red""#),
        (##"{"away": {"secondaryColour": "#ＡＢ"}}"##, "teams.away.secondaryColour", ##"must be a colour #RRGGBB (#FFFFFF), got "#ＡＢ""##),
        (#"{"home": "Arsenal"}"#, "teams.home", "must be an object with code, primaryColour and secondaryColour, got string"),
        (#"["home"]"#, "teams", #"must be an object {"home": {…}, "away": {…}}, got array"#),
    ])
    func aBadPartIsRefusedByPath(teams: String, path: String, message: String) {
        #expect(throws: EventValidationError(errors: [FieldError(path: path, message: message)])) {
            try Self.validate(Self.body(teams: teams))
        }
    }

    @Test func roundTripsThroughTheEventsJSON() throws {
        let event = try #require(try Self.validate(Self.body(teams: ##"{"home": {"code": "NBU", "primaryColour": "#C8102E"}}"##)).events.first)
        #expect(event.jsonValue["teams"] == ["home": ["code": "NBU", "primaryColour": "#C8102E"]])
        #expect(try FeedEventValidator().event(from: event.jsonValue, now: Self.now) == event)
    }

    @Test func theFoldKeepsEachPartOfTheNewestEventAndStoresIt() throws {
        let at = Date(timeIntervalSince1970: 1_764_450_000)
        let scheduled = try #require(GameState.initial.applying(FeedEvent(id: "s", game: "g", seq: 1, occurredAt: at, kind: .scheduled)).state)
        var first = FeedEvent(id: "a", game: "g", seq: 2, occurredAt: at, kind: .scheduled)
        first.teams = [.home: TeamIdentity(code: "NBU", primaryColour: "#C8102E", secondaryColour: "#FFFFFF"), .away: TeamIdentity(code: "CFC")]
        var second = FeedEvent(id: "b", game: "g", seq: 3, occurredAt: at, kind: .start)
        second.teams = [.home: TeamIdentity(primaryColour: "#000000")]
        var late = FeedEvent(id: "c", game: "g", seq: 2, occurredAt: at, kind: .clock)
        late.teams = [.away: TeamIdentity(code: "XXX")]

        let afterFirst = try #require(scheduled.applying(first).state)
        #expect(afterFirst.shownSeq == 1, "codes and colours are not on the content-state: nothing to push")
        let afterSecond = try #require(afterFirst.applying(second).state)
        #expect(afterSecond.teams == [
            .home: TeamIdentity(code: "NBU", primaryColour: "#000000", secondaryColour: "#FFFFFF"), .away: TeamIdentity(code: "CFC"),
        ])
        #expect(afterSecond.applying(late).state == nil, "a stale event changes no identity")
        #expect(try GameState(jsonValue: afterSecond.jsonValue) == afterSecond)
    }

    @Test func theRegistrationWinsAndTheFeedFillsTheGaps() {
        let registered = TeamIdentity(code: "AFC")
        let fed = TeamIdentity(code: "ARS", primaryColour: "#EF0107")
        #expect(registered.filled(from: fed) == TeamIdentity(code: "AFC", primaryColour: "#EF0107"))
        let shown = registered.filled(from: fed).attributes(name: "Arsenal")
        #expect([shown.abbreviation, shown.primaryColour, shown.secondaryColour] == ["AFC", "#EF0107", "#FFFFFF"])
    }
}
