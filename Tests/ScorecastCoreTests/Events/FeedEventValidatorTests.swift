import Foundation
import JSON
import Testing
@testable import ScorecastCore

@Suite struct FeedEventValidatorTests {
    static let now = Date(timeIntervalSince1970: 1_764_453_600)
    static let goal = #"{"id":"evt-1","game":"epl:ars-che","seq":42,"occurredAt":"2025-11-29T21:45:00Z","kind":"score","scoreboard":{"home":2,"away":1,"period":"2H","clock":"67'","extra":{"corners":5,"possession":"home","var":false,"note":null}},"description":"Saka curls it in","team":"home","player":"Bukayo Saka","alert":true}"#

    func validate(_ text: String, limits: FeedEventLimits = FeedEventLimits()) throws(EventValidationError) -> [FeedEvent] {
        try FeedEventValidator(limits: limits).events(fromBody: Array(text.utf8), now: Self.now)
    }

    @Test func acceptsAFullEvent() throws {
        let events = try validate(Self.goal)
        #expect(events == [
            FeedEvent(
                id: "evt-1", game: "epl:ars-che", seq: 42, occurredAt: Date(timeIntervalSince1970: 1_764_452_700), kind: .score,
                scoreboard: ScoreboardUpdate(
                    home: 2, away: 1, period: .set("2H"), clock: .set("67'"),
                    extra: ["corners": 5, "possession": "home", "var": false, "note": nil]
                ),
                description: "Saka curls it in", team: .home, player: "Bukayo Saka", alert: true
            )
        ])
    }

    @Test func acceptsAMinimalEventAndABatch() throws {
        let minimal = #"{"id":"a","game":"g","seq":1,"occurredAt":"2025-11-29T21:45:00Z","kind":"var"}"#
        let single = try validate(minimal)
        #expect(single.count == 1)
        #expect(single.first?.kind == .videoReview)
        #expect(single.first?.scoreboard.isEmpty == true)
        let batch = try validate(#"{"events":[\#(minimal),\#(Self.goal)]}"#)
        #expect(batch.map(\.id) == ["a", "evt-1"])
    }

    @Test func roundTripsThroughItsJSON() throws {
        let original = try #require(try validate(Self.goal).first)
        var withFraction = original
        withFraction.occurredAt = Date(timeIntervalSince1970: 1_764_452_700.123)
        withFraction.scoreboard.clock = .clear
        for event in [original, withFraction] {
            let again = try FeedEventValidator().event(from: event.jsonValue, now: Self.now)
            #expect(abs(again.occurredAt.timeIntervalSince(event.occurredAt)) < 0.000_5)
            var aligned = again
            aligned.occurredAt = event.occurredAt
            #expect(aligned == event)
        }
    }

    @Test func acceptsTheSportsFields() throws {
        let card = #"{"id":"c","game":"g","seq":3,"occurredAt":"2025-11-29T21:45:00Z","kind":"card","team":"away","player":"Lionel Andrés Messi Cuccittini","shortName":"Messi","card":"second-yellow"}"#
        let ownGoal = #"{"id":"o","game":"g","seq":4,"occurredAt":"2025-11-29T21:45:00Z","kind":"score","team":"away","player":"Merih Demiral","ownGoal":true,"penalty":false,"scoreboard":{"away":1,"clockSeconds":2612.5,"clockRunning":true,"addedTime":4,"shootout":{"home":3,"away":2}}}"#
        let events = try validate(#"{"events":[\#(card),\#(ownGoal)]}"#)
        #expect(events[0].card == .secondYellow)
        #expect(events[0].shortName == "Messi")
        #expect(events[1].ownGoal == true)
        #expect(events[1].penalty == false)
        #expect(events[1].scoreboard.clockSeconds == 2612.5)
        #expect(events[1].scoreboard.clockRunning == true)
        #expect(events[1].scoreboard.addedTime == .set(4))
        #expect(events[1].scoreboard.shootout == .set(.init(home: 3, away: 2)))
        for event in events {
            #expect(try FeedEventValidator().event(from: event.jsonValue, now: Self.now) == event)
        }
        let cleared = try validate(#"{"id":"n","game":"g","seq":5,"occurredAt":"2025-11-29T21:45:00Z","kind":"period","scoreboard":{"addedTime":null,"shootout":null}}"#)
        #expect(cleared.first?.scoreboard.addedTime == .clear)
        #expect(cleared.first?.scoreboard.shootout == .clear)
    }

    /// Each row: a modification of the goal event (key → replacement JSON text, or nil to remove
    /// it) and the one error expected.
    @Test(arguments: [
        ("id", nil, "id", "is required"),
        ("id", "\"\"", "id", "must be 1 to 128 characters long, got 0"),
        ("id", "\"has space\"", "id", "may contain only visible ASCII characters (no spaces or control characters)"),
        ("id", "\"\(String(repeating: "x", count: 129))\"", "id", "must be 1 to 128 characters long, got 129"),
        ("id", "7", "id", "must be a string, got integer"),
        ("game", "\"a/b\"", "game", "may contain only A-Z a-z 0-9 . _ : -"),
        ("game", "\"é\"", "game", "may contain only A-Z a-z 0-9 . _ : -"),
        ("seq", "0", "seq", "must be an integer from 1 to 9007199254740992, got 0"),
        ("seq", "-3", "seq", "must be an integer from 1 to 9007199254740992, got -3"),
        ("seq", "1.5", "seq", "must be an integer from 1 to 9007199254740992, got 1.5"),
        ("seq", "9007199254740993", "seq", "must be an integer from 1 to 9007199254740992, got 9007199254740993"),
        ("seq", "\"42\"", "seq", "must be an integer from 1 to 9007199254740992, got string"),
        ("seq", "null", "seq", "must be an integer from 1 to 9007199254740992, got null"),
        ("occurredAt", "\"2025-11-29T21:45:00\"", "occurredAt", "must be an RFC 3339 date-time with a zone, such as 2025-11-29T21:45:00Z"),
        ("occurredAt", "1764452700", "occurredAt", "must be an RFC 3339 date-time with a zone, such as 2025-11-29T21:45:00Z, got integer"),
        ("occurredAt", "\"1969-12-31T23:59:59Z\"", "occurredAt", "must not be before 1970-01-01T00:00:00Z"),
        ("occurredAt", "\"2025-11-29T22:10:01Z\"", "occurredAt", "is more than 600 seconds ahead of the server's clock"),
        ("kind", "\"goal\"", "kind", "must be one of scheduled, start, score, period, clock, card, substitution, var, penalty, timeout, stats, suspended, resumed, final, cancelled"),
        ("scoreboard", "[]", "scoreboard", "must be an object, got array"),
        ("scoreboard", #"{"home":-1}"#, "scoreboard.home", "must be an integer from 0 to 999999, got -1"),
        ("scoreboard", #"{"away":1000000}"#, "scoreboard.away", "must be an integer from 0 to 999999, got 1000000"),
        ("scoreboard", #"{"home":null}"#, "scoreboard.home", "must be an integer from 0 to 999999, got null"),
        ("scoreboard", #"{"period":"12345678901234567"}"#, "scoreboard.period", "must be 1 to 16 characters long, got 17"),
        ("scoreboard", #"{"clock":5}"#, "scoreboard.clock", "must be a string or null, got integer"),
        ("scoreboard", #"{"clock":"1\n2"}"#, "scoreboard.clock", "may contain only printable characters (no control characters)"),
        ("scoreboard", #"{"extra":{"1st":1}}"#, "scoreboard.extra.1st", "is not a valid name: a letter, then up to 31 letters, digits or _"),
        ("scoreboard", #"{"extra":{"a":[1]}}"#, "scoreboard.extra.a", "must be a string, number, boolean or null, got array"),
        ("scoreboard", #"{"extra":{"a":""}}"#, "scoreboard.extra.a", "must be 1 to 64 characters long, got 0"),
        ("scoreboard", #"{"extra":[]}"#, "scoreboard.extra", "must be an object, got array"),
        ("description", "\"\(String(repeating: "é", count: 281))\"", "description", "must be 1 to 280 characters long, got 281"),
        ("description", "\"tab\\there\"", "description", "may contain only printable characters (no control characters)"),
        ("team", "\"visitors\"", "team", "must be one of home, away"),
        ("player", "\"\(String(repeating: "p", count: 65))\"", "player", "must be 1 to 64 characters long, got 65"),
        ("alert", "1", "alert", "must be a boolean, got integer"),
        ("card", "\"red\"", "card", "only applies to kind card, not score"),
        ("ownGoal", "\"yes\"", "ownGoal", "must be a boolean, got string"),
        ("shortName", "\"\(String(repeating: "s", count: 33))\"", "shortName", "must be 1 to 32 characters long, got 33"),
        ("scoreboard", #"{"clockSeconds":-1}"#, "scoreboard.clockSeconds", "must be a number of seconds from 0 to 86400"),
        ("scoreboard", #"{"clockSeconds":"67"}"#, "scoreboard.clockSeconds", "must be a number of seconds from 0 to 86400"),
        ("scoreboard", #"{"clockRunning":1}"#, "scoreboard.clockRunning", "must be a boolean, got integer"),
        ("scoreboard", #"{"addedTime":61}"#, "scoreboard.addedTime", "must be an integer from 0 to 60, got 61"),
        ("scoreboard", #"{"shootout":{"home":3}}"#, "scoreboard.shootout.away", "is required"),
        ("scoreboard", #"{"shootout":[3,2]}"#, "scoreboard.shootout", "must be an object {\"home\": n, \"away\": n} or null, got array"),
    ] as [(String, String?, String, String)])
    func refusesABadField(key: String, replacement: String?, path: String, message: String) throws {
        var members = try #require(JSONParser().parse(Self.goal).objectValue)
        members[key] = try replacement.map { try JSONParser().parse($0) }
        let body = try JSONValue.object(members).encoded()
        #expect(throws: EventValidationError(errors: [FieldError(path: path, message: message)])) {
            try FeedEventValidator().events(fromBody: body, now: Self.now)
        }
    }

    @Test func namesThePathInsideABatchAndRefusesItWhole() throws {
        let good = Self.goal
        let bad = #"{"id":"b","game":"g","seq":2,"occurredAt":"2025-11-29T21:45:00Z","kind":"score","scoreboard":{"home":"two"}}"#
        #expect(throws: EventValidationError(errors: [FieldError(path: "events[2].scoreboard.home", message: "must be an integer from 0 to 999999, got string")])) {
            try validate(#"{"events":[\#(good.replacingOccurrences(of: "evt-1", with: "x")),\#(good),\#(bad)]}"#)
        }
    }

    @Test(arguments: [
        ("[]", "", "must be a JSON object (one event, or {\"events\": [...]})"),
        ("{\"events\":[]}", "events", "must hold 1 to 3 events, got 0"),
        ("{\"events\":[1,2,3,4]}", "events", "must hold 1 to 3 events, got 4"),
        ("{\"events\":{}}", "events", "must be an array, got object"),
        ("{\"events\":[1]}", "events[0]", "must be an object, got integer"),
        ("{\"events\":[{}],\"extra\":1}", "extra", "is not a known field (a batch has only \"events\")"),
        ("{\"id\":", "", "invalid JSON at byte 6: unexpected end of input, expected a value"),
    ])
    func refusesBadShapes(body: String, path: String, message: String) {
        #expect {
            try validate(body, limits: FeedEventLimits(maximumBatchSize: 3))
        } throws: { error in
            (error as? EventValidationError)?.errors.first == FieldError(path: path, message: message)
        }
    }

    @Test func refusesARepeatedIDInABatch() {
        #expect(throws: EventValidationError(errors: [FieldError(path: "events[1].id", message: "repeats the id of events[0]")])) {
            try validate(#"{"events":[\#(Self.goal),\#(Self.goal)]}"#)
        }
    }

    @Test func reportsEveryErrorUpToTheCap() throws {
        let body = #"{"id":"","game":"","seq":0,"occurredAt":"x","kind":"y","team":"z","junk":1}"#
        let errors: [FieldError]
        do {
            _ = try validate(body)
            Issue.record("expected a failure")
            return
        } catch {
            errors = error.errors
        }
        #expect(errors.map(\.path) == ["id", "game", "seq", "occurredAt", "kind", "team"], "an unknown field is no error")
        #expect(throws: EventValidationError.self) {
            try FeedEventValidator(maximumErrors: 2).events(fromBody: Array(body.utf8), now: Self.now)
        }
        do {
            _ = try FeedEventValidator(maximumErrors: 2).events(fromBody: Array(body.utf8), now: Self.now)
        } catch {
            #expect(error.errors.count == 2)
        }
    }

    @Test func unknownFieldsAreIgnoredAndNamed() throws {
        var members = try #require(JSONParser().parse(Self.goal).objectValue)
        let known = try validate(Self.goal)
        members["colour"] = "red"
        members["venue"] = ["name": "Emirates"]
        var scoreboard = try #require(members["scoreboard"]?.objectValue)
        scoreboard["shots"] = 3
        scoreboard["shootout"] = ["home": 3, "away": 2, "sudden": true]
        members["scoreboard"] = .object(scoreboard)
        let validated = try FeedEventValidator().validate(.object(members), now: Self.now)
        var expected = known
        expected[0].scoreboard.shootout = .set(.init(home: 3, away: 2))
        #expect(validated.events == expected, "everything the server knows is kept")
        #expect(validated.ignoredFields == ["colour", "venue", "scoreboard.shots", "scoreboard.shootout.sudden"])
        #expect(validated.ignoredFieldCount == 4)
        let batch = try FeedEventValidator().validate(.object(["events": [.object(members), try JSONParser().parse(#"{"id":"b","game":"g","seq":1,"occurredAt":"2025-11-29T21:45:00Z","kind":"var","x":1}"#)]]), now: Self.now)
        #expect(batch.ignoredFields == ["events[0].colour", "events[0].venue", "events[0].scoreboard.shots", "events[0].scoreboard.shootout.sudden", "events[1].x"])
    }

    @Test func hostileKeysAreCutShortInPaths() throws {
        let key = String(repeating: "k\"", count: 100)
        var members = try #require(JSONParser().parse(Self.goal).objectValue)
        members[key] = 1
        let validated = try FeedEventValidator().validate(.object(members), now: Self.now)
        let unknown = try #require(validated.ignoredFields.first)
        #expect(unknown == "\"" + String(repeating: "k?", count: 16) + "…\"")
    }

    @Test func refusesTooManyExtraEntries() throws {
        var extra: [String: JSONValue] = [:]
        for index in 0...FeedEventLimits.extraMaximumEntries { extra["k\(index)"] = .integer(index) }
        var members = try #require(JSONParser().parse(Self.goal).objectValue)
        members["scoreboard"] = ["extra": .object(extra)]
        #expect(throws: EventValidationError(errors: [FieldError(path: "scoreboard.extra", message: "must have at most 16 entries, got 17")])) {
            try FeedEventValidator().events(from: .object(members), now: Self.now)
        }
    }
}
