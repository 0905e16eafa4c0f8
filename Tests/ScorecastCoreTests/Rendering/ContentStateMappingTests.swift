import JSON
import Testing
@testable import ScorecastCore

@Suite struct ContentStateMappingTests {
    static let state = ContentStateTests.fullState

    @Test func renamesAndOmitsAtEveryLevel() throws {
        let mapping = try ContentStateMapping(
            renames: ["homeScore": "home", "awayScore": "away", "lastEvent.text": "summary", "lastEvent": "last"],
            omitted: ["extra", "lastEvent.team"]
        )
        let json = mapping.apply(to: try ContentStateRenderer.render(Self.state, dateEncoding: .unixSeconds, fallbackTime: ContentStateTests.occurred))
        #expect(try json.encodedString() == #"{"away":1,"cards":[],"clock":{"direction":"up","label":"67'","running":false},"home":2,"last":{"kind":"score","occurredAt":1764452700,"player":"Saka","summary":"Saka curls it in"},"period":"2H","scorers":[],"status":"live","updatedAt":1764452700,"version":2}"#)
    }

    @Test func renamesInsideClocksAndListElements() throws {
        let mapping = try ContentStateMapping(renames: ["clock.label": "text", "scorers.player": "name"], omitted: ["scorers.minute"])
        var content = ContentStateRenderer.contentState(of: Self.state, fallbackTime: ContentStateTests.occurred)
        content.scorers = [.init(team: .home, player: "Saka", minute: 12), .init(team: .away, player: "Kane", minute: 30)]
        let json = mapping.apply(to: try ContentStateRenderer.encode(content, dateEncoding: .unixSeconds))
        #expect(json["clock"] == ["direction": "up", "text": "67'", "running": false])
        #expect(json["scorers"] == [
            ["team": "home", "name": "Saka", "ownGoal": false, "penalty": false],
            ["team": "away", "name": "Kane", "ownGoal": false, "penalty": false],
        ])
    }

    @Test func identityChangesNothing() throws {
        let json = try ContentStateRenderer.render(Self.state, dateEncoding: .referenceDate, fallbackTime: ContentStateTests.occurred)
        #expect(ContentStateMapping.identity.apply(to: json) == json)
        #expect(try ContentStateMapping(jsonValue: .null) == .identity)
        #expect(try ContentStateMapping(jsonValue: [:]) == .identity)
    }

    @Test(arguments: [
        ([String: String](), Set(["score"]), ["omission of unknown key score"]),
        (["homeScore": "awayScore"], Set<String>(), ["awayScore and homeScore would both be named awayScore"]),
        (["lastEvent.kind": "a.b"], Set<String>(), ["lastEvent.kind cannot be renamed to \"a.b\": use 1–64 printable characters without a dot"]),
        (["clock": ""], Set<String>(), ["clock cannot be renamed to \"\": use 1–64 printable characters without a dot"]),
        (["clock": "time"], Set(["clock"]), ["clock is both renamed and omitted"]),
        (["lastEvent.who": "x"], Set<String>(), ["rename of unknown key lastEvent.who"]),
    ])
    func refusesBadMappings(renames: [String: String], omitted: Set<String>, problems: [String]) {
        #expect(throws: ContentStateMappingError(problems: problems)) {
            try ContentStateMapping(renames: renames, omitted: omitted)
        }
    }

    @Test func swappingTwoNamesIsAllowed() throws {
        let mapping = try ContentStateMapping(renames: ["homeScore": "awayScore", "awayScore": "homeScore"])
        let json = mapping.apply(to: try ContentStateRenderer.render(Self.state, dateEncoding: .referenceDate, fallbackTime: ContentStateTests.occurred))
        #expect(json["homeScore"] == 1)
        #expect(json["awayScore"] == 2)
    }

    /// Reading a sent body back: every renamed key at every level (a swap, a clock's, each list
    /// element's) gets its default name again; omitted keys stay absent.
    @Test func unapplyReadsASentStateBackInTheDefaultShape() throws {
        let mapping = try ContentStateMapping(
            renames: ["homeScore": "awayScore", "awayScore": "homeScore", "clock.label": "text", "scorers.player": "name", "lastEvent": "last",
                      "lastEvent.text": "summary"],
            omitted: ["extra", "scorers.minute"])
        var content = ContentStateRenderer.contentState(of: Self.state, fallbackTime: ContentStateTests.occurred)
        content.scorers = [.init(team: .home, player: "Saka", minute: 12), .init(team: .away, player: "Kane", minute: 30)]
        let original = try ContentStateRenderer.encode(content, dateEncoding: .unixSeconds)
        let sent = mapping.apply(to: original)
        #expect(sent["homeScore"] == original["awayScore"] && sent["last"] != nil)
        var expected = try #require(original.objectValue)
        expected["extra"] = nil
        expected["scorers"] = .array((original["scorers"]?.arrayValue ?? []).map { element in
            var scorer = element.objectValue ?? [:]
            scorer["minute"] = nil
            return .object(scorer)
        })
        #expect(mapping.unapply(to: sent) == .object(expected))
        #expect(ContentStateMapping.identity.unapply(to: sent) == sent)
    }

    @Test func roundTripsThroughJSON() throws {
        let mapping = try ContentStateMapping(renames: ["homeScore": "h"], omitted: ["extra"])
        #expect(try ContentStateMapping(jsonValue: mapping.jsonValue) == mapping)
        let parsed = try ContentStateMapping(jsonValue: JSONParser().parse(#"{"rename":{"clock":"time"},"omit":["lastEvent.player"]}"#))
        #expect(parsed.renames == ["clock": "time"])
        #expect(parsed.omitted == ["lastEvent.player"])
    }

    @Test(arguments: [
        (#"[]"#, "must be an object with \"rename\" and \"omit\""),
        (#"{"rename":[]}"#, "rename must be an object"),
        (#"{"omit":"extra"}"#, "omit must be an array of strings"),
        (#"{"rename":{"clock":1}}"#, "rename.clock must be a string"),
        (#"{"renames":{}}"#, "unknown field renames"),
    ])
    func refusesBadJSON(text: String, problem: String) throws {
        let json = try JSONParser().parse(text)
        #expect(throws: ContentStateMappingError(problems: [problem])) { try ContentStateMapping(jsonValue: json) }
    }
}
