import Foundation
import JSON
import Testing
@testable import ScorecastCore

// The struct below must stay a verbatim copy of `ContentState.swiftSource`
// (`swiftSourceIsCompiledHere` checks it): decoding rendered output with it, through a default
// JSONDecoder exactly as ActivityKit does, proves the documented struct matches what we send.
/// The live state of a game, sent by scorecast in every Live Activity update.
struct ContentState: Codable, Hashable {
    /// "scheduled", "live", "suspended", "final" or "cancelled".
    var status: String
    var homeScore: Int
    var awayScore: Int
    /// The feed's period label ("2H", "Q3", "Top 7th"), when known.
    var period: String?
    /// The feed's clock label ("67'", "04:12"), when known.
    var clock: String?
    /// The last play, when there was one.
    var lastEvent: LastEvent?
    /// Sport-specific values as text, e.g. ["corners": "5"].
    var extra: [String: String]
    /// When the last play happened.
    var updatedAt: Date

    struct LastEvent: Codable, Hashable {
        /// The feed's event kind: "score", "card", "period", …
        var kind: String
        /// The feed's description of the play.
        var text: String?
        /// "home" or "away".
        var team: String?
        var player: String?
    }
}

@Suite struct ContentStateTests {
    static let occurred = Date(timeIntervalSince1970: 1_764_452_700)

    static let fullState = GameState(
        status: .live, homeScore: 2, awayScore: 1, period: "2H", clock: "67'",
        extra: ["corners": 5, "possession": "home", "xg": 1.25, "var": false],
        lastEvent: LastEventSummary(id: "e1", kind: .score, occurredAt: occurred, description: "Saka curls it in", team: .home, player: "Saka"),
        appliedSeq: 9
    )

    @Test func swiftSourceIsCompiledHere() throws {
        let thisFile = try String(contentsOfFile: #filePath, encoding: .utf8)
        #expect(thisFile.contains(ScorecastCore.ContentState.swiftSource))
    }

    @Test(arguments: [fullState, GameState.initial])
    func renderedStateDecodesWithTheDocumentedStruct(state: GameState) throws {
        let json = ScorecastCore.ContentState.render(state, dateEncoding: .referenceDate, fallbackTime: Self.occurred)
        let decoded = try JSONDecoder().decode(ContentState.self, from: Data(try json.encoded()))
        #expect(decoded.status == state.status.rawValue)
        #expect(decoded.homeScore == state.homeScore)
        #expect(decoded.awayScore == state.awayScore)
        #expect(decoded.period == state.period)
        #expect(decoded.clock == state.clock)
        #expect(decoded.updatedAt == Self.occurred)
        #expect(decoded.lastEvent?.kind == state.lastEvent?.kind.rawValue)
        #expect(decoded.lastEvent?.text == state.lastEvent?.description)
        #expect(decoded.lastEvent?.player == state.lastEvent?.player)
        #expect(decoded.extra.count == state.extra.count)
    }

    @Test func fullRenderingUsesEveryDocumentedKeyAndNoOther() throws {
        let json = ScorecastCore.ContentState.render(Self.fullState, dateEncoding: .referenceDate, fallbackTime: Self.occurred)
        var paths: [String] = []
        for (key, value) in try #require(json.objectValue) {
            paths.append(key)
            if key == "lastEvent" { paths += try #require(value.objectValue).keys.map { "lastEvent." + $0 } }
        }
        #expect(Set(paths) == Set(ScorecastCore.ContentState.keyPaths))
        #expect(json["extra"] == ["corners": "5", "possession": "home", "xg": "1.25", "var": "false"])
        #expect(try json.encodedString() == #"{"awayScore":1,"clock":"67'","extra":{"corners":"5","possession":"home","var":"false","xg":"1.25"},"homeScore":2,"lastEvent":{"kind":"score","player":"Saka","team":"home","text":"Saka curls it in"},"period":"2H","status":"live","updatedAt":786145500}"#)
    }

    @Test(arguments: [
        (ContentDateEncoding.referenceDate, JSONValue.integer(786_145_500)),
        (.unixSeconds, .integer(1_764_452_700)),
        (.iso8601, .string("2025-11-29T21:45:00Z")),
    ])
    func datesFollowTheAppsEncoding(encoding: ContentDateEncoding, expected: JSONValue) throws {
        let json = ScorecastCore.ContentState.render(Self.fullState, dateEncoding: encoding, fallbackTime: Self.occurred)
        // Compare encoded text: 786145500.0 (double) and 786145500 (integer) encode alike.
        #expect(try json["updatedAt"]?.encodedString() == expected.encodedString())
    }

    @Test func iso8601DecodesWithTheIso8601Strategy() throws {
        struct Probe: Decodable { var updatedAt: Date }
        let json = ScorecastCore.ContentState.render(Self.fullState, dateEncoding: .iso8601, fallbackTime: Self.occurred)
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        #expect(try decoder.decode(Probe.self, from: Data(json.encoded())).updatedAt == Self.occurred)
    }
}
