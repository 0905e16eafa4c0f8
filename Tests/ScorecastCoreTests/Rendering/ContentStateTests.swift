import Foundation
import JSON
import ScorecastActivity
import Testing
@testable import ScorecastCore

// Rendered content-state decodes into the package's own ContentState through a default
// JSONDecoder, exactly as ActivityKit decodes it on the phone.
@Suite struct ContentStateTests {
    static let occurred = Date(timeIntervalSince1970: 1_764_452_700)

    static let fullState = GameState(
        status: .live, homeScore: 2, awayScore: 1, period: "2H", clock: "67'",
        extra: ["corners": 5, "possession": "home", "xg": 1.25, "var": false],
        lastEvent: LastEventSummary(id: "e1", kind: .score, occurredAt: occurred, description: "Saka curls it in", team: .home, player: "Saka"),
        appliedSeq: 9
    )

    @Test(arguments: [fullState, GameState.initial])
    func renderedStateDecodesIntoThePackagesType(state: GameState) throws {
        let json = try ContentStateRenderer.render(state, dateEncoding: .referenceDate, fallbackTime: Self.occurred)
        let decoded = try JSONDecoder().decode(ScorecastActivity.ContentState.self, from: Data(try json.encoded()))
        #expect(decoded == ContentStateRenderer.contentState(of: state, fallbackTime: Self.occurred))
        #expect(decoded.version == 2)
        #expect(decoded.status.rawValue == state.status.rawValue)
        #expect(decoded.homeScore == state.homeScore)
        #expect(decoded.awayScore == state.awayScore)
        #expect(decoded.period == state.period)
        #expect(decoded.clock?.label == state.clock)
        #expect(decoded.updatedAt == Self.occurred)
        #expect(decoded.lastEvent?.kind.rawValue == state.lastEvent?.kind.rawValue)
        #expect(decoded.lastEvent?.text == state.lastEvent?.description)
        #expect(decoded.lastEvent?.player == state.lastEvent?.player)
        #expect(decoded.extra.count == state.extra.count)
    }

    @Test func everyFeedKindHasAPlayKind() {
        for kind in EventKind.allCases {
            #expect(ScorecastActivity.ContentState.Play.Kind(rawValue: kind.rawValue) != nil, "\(kind)")
        }
        #expect(EventKind.allCases.count == ScorecastActivity.ContentState.Play.Kind.allCases.count)
    }

    @Test func everyRenderedPathIsAMappablePath() throws {
        var content = ContentStateRenderer.contentState(of: Self.fullState, fallbackTime: Self.occurred)
        content.clock = .init(label: "67'", running: true, direction: .up, seconds: 2700, periodStartedAt: Self.occurred, stoppedAt: Self.occurred, periodLength: 2700, addedMinutes: 3)
        content.lastEvent = .init(kind: .card, text: "t", team: .away, player: "Kane", minute: 52, addedMinute: 1, card: .red, ownGoal: false, penalty: false, occurredAt: Self.occurred)
        content.scorers = [.init(team: .home, player: "Saka", minute: 12, addedMinute: 1, ownGoal: true, penalty: true)]
        content.cards = [.init(team: .away, player: "Kane", minute: 52, addedMinute: 1, colour: .secondYellow)]
        content.redCards = .init(home: 0, away: 1)
        content.shootout = .init(home: 3, away: 2)
        content.earlierScorers = .init(home: 4, away: 1)
        content.earlierCards = .init(home: 2, away: 3)
        let json = try ContentStateRenderer.encode(content, dateEncoding: .referenceDate)
        var paths: [String] = []
        for (key, value) in try #require(json.objectValue) {
            paths.append(key)
            guard key != "extra" else { continue }
            for member in value.objectValue ?? value.arrayValue?.first?.objectValue ?? [:] {
                paths.append(key + "." + member.key)
            }
        }
        #expect(Set(paths) == Set(ContentStateRenderer.keyPaths))
        #expect(json["extra"] == ["corners": "5", "possession": "home", "xg": "1.25", "var": "false"])
        #expect(json["cards"]?.arrayValue?.first?["colour"] == "second-yellow")
    }

    @Test func fullRenderingIsExactlyThis() throws {
        let json = try ContentStateRenderer.render(Self.fullState, dateEncoding: .referenceDate, fallbackTime: Self.occurred)
        #expect(try json.encodedString() == #"{"awayScore":1,"cards":[],"clock":{"direction":"up","label":"67'","running":false},"extra":{"corners":"5","possession":"home","var":"false","xg":"1.25"},"homeScore":2,"lastEvent":{"kind":"score","occurredAt":786145500,"player":"Saka","team":"home","text":"Saka curls it in"},"period":"2H","scorers":[],"status":"live","updatedAt":786145500,"version":2}"#)
    }

    @Test(arguments: [
        (ContentDateEncoding.referenceDate, JSONValue.integer(786_145_500)),
        (.unixSeconds, .integer(1_764_452_700)),
        (.iso8601, .string("2025-11-29T21:45:00Z")),
    ])
    func datesFollowTheAppsEncoding(encoding: ContentDateEncoding, expected: JSONValue) throws {
        let json = try ContentStateRenderer.render(Self.fullState, dateEncoding: encoding, fallbackTime: Self.occurred)
        // Compare encoded text: 786145500.0 (double) and 786145500 (integer) encode alike.
        #expect(try json["updatedAt"]?.encodedString() == expected.encodedString())
        #expect(try json["lastEvent"]?["occurredAt"]?.encodedString() == expected.encodedString())
    }

    @Test(arguments: [
        (ContentDateEncoding.referenceDate, JSONDecoder.DateDecodingStrategy.deferredToDate),
        (.unixSeconds, .secondsSince1970),
        (.iso8601, .iso8601),
    ])
    func everyEncodingDecodesWithItsStrategy(encoding: ContentDateEncoding, strategy: JSONDecoder.DateDecodingStrategy) throws {
        let json = try ContentStateRenderer.render(Self.fullState, dateEncoding: encoding, fallbackTime: Self.occurred)
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = strategy
        let decoded = try decoder.decode(ScorecastActivity.ContentState.self, from: Data(json.encoded()))
        #expect(decoded.updatedAt == Self.occurred)
        #expect(decoded.lastEvent?.occurredAt == Self.occurred)
    }
}
