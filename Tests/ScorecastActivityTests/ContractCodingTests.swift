import Foundation
import ScorecastActivity
import Testing

/// The JSON the app reads: fixed key names and types, decoded with a default JSONDecoder.
@Suite struct ContractCodingTests {
    static let at = Date(timeIntervalSinceReferenceDate: 786_146_820)

    @Test func aDocumentedPayloadDecodes() throws {
        let json = #"""
            {"awayScore": 1, "cards": [{"colour": "red", "minute": 52, "player": "Kane", "team": "away"}],
             "clock": {"direction": "up", "label": "67'", "periodStartedAt": 786145500, "running": true, "seconds": 2700},
             "extra": {"corners": "5"}, "homeScore": 2,
             "lastEvent": {"kind": "score", "minute": 67, "occurredAt": 786146820, "player": "Saka", "team": "home", "text": "Saka curls it in"},
             "period": "2H", "redCards": {"away": 1, "home": 0},
             "scorers": [{"minute": 12, "ownGoal": false, "penalty": false, "player": "Saka", "team": "home"}],
             "status": "live", "updatedAt": 786146820, "version": 2}
            """#
        let state = try JSONDecoder().decode(ContentState.self, from: Data(json.utf8))
        #expect(state.version == ContentState.currentVersion)
        #expect(state.status == .live)
        #expect(state.clock?.periodStartedAt == Date(timeIntervalSinceReferenceDate: 786_145_500))
        let reading = try #require(state.clock?.reading(at: Self.at))
        #expect(reading == 4020.0)
        #expect(state.cards == [.init(team: .away, player: "Kane", minute: 52, colour: .red)])
        #expect(state.redCards?[.away] == 1)
        #expect(state.scorers.first?.player == "Saka")
        #expect(state.lastEvent?.occurredAt == Self.at)
    }

    @Test func attributesRoundTrip() throws {
        let attributes = GameAttributes(
            gameID: "demo-nbu-cfc", sport: "football", league: "Demo League",
            home: .init(name: "Northbridge United", shortName: "Northbridge", abbreviation: "NBU"),
            away: .init(name: "Castleford City"), startsAt: Self.at
        )
        let data = try JSONEncoder().encode(attributes)
        #expect(try JSONDecoder().decode(GameAttributes.self, from: data) == attributes)
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(Set(object.keys) == ["gameID", "sport", "league", "home", "away", "startsAt"])
        #expect(attributes.team(.away).name == "Castleford City")
        #expect(GameAttributes.typeName == "GameAttributes")
    }

    @Test func cardColoursUseTheFeedsWords() throws {
        #expect(ContentState.CardColour.allCases.map(\.rawValue) == ["yellow", "second-yellow", "red"])
        #expect(ContentState.CardColour.allCases.filter(\.sendsOff) == [.secondYellow, .red])
    }
}
