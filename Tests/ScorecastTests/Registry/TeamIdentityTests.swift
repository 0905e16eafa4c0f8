@testable import Devices
import Foundation
import JSON
@testable import Registry
import ScorecastCore
import Testing

/// A game's team codes and colours: checked and normalised at registration, stored, and read
/// back as the push-to-start's attributes carry them.
@Suite struct TeamIdentityTests {
    @Test func optionsAreNormalised() throws {
        let identity = try TeamIdentity.parse(side: "home", code: "s04", colours: "004D9D, ffffff")
        #expect(identity == TeamIdentity(code: "S04", primaryColour: "#004D9D", secondaryColour: "#FFFFFF"))
        #expect(try TeamIdentity.parse(side: "away", code: nil, colours: "#034694") == TeamIdentity(primaryColour: "#034694"))
        #expect(try TeamIdentity.parse(side: "away", code: nil, colours: nil) == TeamIdentity())
    }

    @Test(arguments: [
        ("ARSE", nil as String?, "--home-code must be 3 letters or digits (ARS, S04), got \"ARSE\""),
        ("A-S", nil, "--home-code must be 3 letters or digits (ARS, S04), got \"A-S\""),
        (nil, "red", "--home-colours must be one or two hex colours, PRIMARY[,SECONDARY] (#C8102E,#FFFFFF), got \"red\""),
        (nil, "#EF0107,#FFFFFF,#000000", "--home-colours must be one or two hex colours, PRIMARY[,SECONDARY] (#C8102E,#FFFFFF), got \"#EF0107,#FFFFFF,#000000\""),
        (nil, "#EF0107,", "--home-colours must be one or two hex colours, PRIMARY[,SECONDARY] (#C8102E,#FFFFFF), got \"#EF0107,\""),
    ] as [(String?, String?, String)])
    func badOptionsAreRefusedByName(code: String?, colours: String?, message: String) {
        #expect(throws: RegistryError(.invalidInput, message)) {
            try TeamIdentity.parse(side: "home", code: code, colours: colours)
        }
    }

    @Test func theAttributesFallBackWhereNothingWasRegistered() {
        let registered = TeamIdentity(code: "AFC", primaryColour: "#EF0107").attributes(name: "Arsenal")
        #expect(registered.abbreviation == "AFC" && registered.primaryColour == "#EF0107" && registered.secondaryColour == "#FFFFFF")
        let fallen = TeamIdentity().attributes(name: "Manchester City")
        #expect(fallen.abbreviation == "MCI" && fallen.primaryColour == "#8E8E93" && fallen.secondaryColour == "#FFFFFF")
    }

    @Test func registrationIsStoredAndReadBack() async throws {
        try await RegistryFixture.with { fixture in
            let games = GameStore(pool: fixture.pool)
            let home = TeamIdentity(code: "NBU", primaryColour: "#C8102E", secondaryColour: "#FFFFFF")
            let added = try await games.add(GameDraft(
                id: "identity", league: "Demo", homeTeam: "Northbridge United", awayTeam: "Castleford City", homeIdentity: home, startsAt: nil))
            #expect(added.homeIdentity == home && added.awayIdentity == TeamIdentity())
            let found = try #require(try await games.find(id: "identity"))
            #expect(found.homeIdentity == home)
            let attributes = try StartAttributes.encode(found, dateEncoding: .iso8601)
            #expect(attributes["home"]?["abbreviation"]?.stringValue == "NBU")
            #expect(attributes["home"]?["primaryColour"]?.stringValue == "#C8102E")
            #expect(attributes["away"]?["abbreviation"]?.stringValue == "CCI")
            #expect(attributes["away"]?["primaryColour"]?.stringValue == "#8E8E93")
            // The table fences what Swift normalises: a lower-case code never gets in.
            await #expect(throws: (any Error).self) {
                _ = try await fixture.pool.query("UPDATE games SET away_code = 'cci' WHERE id = 'identity'")
            }
        }
    }
}
