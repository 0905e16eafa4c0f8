import Foundation
import ScorecastActivity
import Testing

/// A team's code and colours: what the registration gave, else a code from the name and neutral
/// colours; payloads without them still decode.
@Suite struct TeamIdentityTests {
    @Test(arguments: [
        ("Arsenal", "ARS"),
        ("Manchester City", "MCI"),
        ("Real Madrid", "RMA"),
        ("Paris Saint-Germain", "PSG"),
        ("Golden State Warriors", "GSW"),
        ("FC Barcelona", "BAR"),
        ("Arsenal FC", "ARS"),
        ("AC Milan", "MIL"),
        ("FC Schalke 04", "S04"),
        ("Atlético Madrid", "AMA"),
        ("Ødegaard", "ØDE"),
        ("AFC", "AFC"),
        ("Home", "HOM"),
        ("", ""),
    ])
    func aCodeFromTheNamesLetters(name: String, code: String) {
        #expect(GameAttributes.Team.code(fromName: name) == code)
        #expect(GameAttributes.Team(name: name).code == code)
    }

    @Test func theRegisteredCodeAndColoursWin() {
        let team = GameAttributes.Team(name: "Northbridge United", abbreviation: "nbu", primaryColour: "#c8102e", secondaryColour: "FFFFFF")
        #expect(team.code == "NBU")
        #expect(team.primary == "#C8102E")
        #expect(team.secondary == "#FFFFFF")
    }

    @Test func invalidOrMissingValuesFallBack() {
        let team = GameAttributes.Team(name: "Castleford City", abbreviation: "CASTLE", primaryColour: "red", secondaryColour: "#12345")
        #expect(team.code == "CCI")
        #expect(team.primary == GameAttributes.Team.neutralPrimary)
        #expect(team.secondary == GameAttributes.Team.neutralSecondary)
        #expect(GameAttributes.Team.validCode("N-B") == nil)
        #expect(GameAttributes.Team.validCode("s04") == "S04")
    }

    /// Codes and colours are ASCII as typed: "ß" upper-cases to "SS" and full-width letters
    /// pass `Character.isHexDigit`, and either would have passed for a code or a colour that the
    /// games table's checks then refuse.
    @Test func onlyASCIICodesAndColoursAreValid() {
        #expect(GameAttributes.Team.validCode("ßA") == nil)
        #expect(GameAttributes.Team.validCode("ÅRS") == nil)
        #expect(GameAttributes.Team.validColour("#ＡＢ") == nil)
        #expect(GameAttributes.Team.validColour("ＡＢ") == nil)
        #expect(GameAttributes.Team.validColour("#c8102e") == "#C8102E")
    }

    @Test func colourComponentsForSwiftUI() throws {
        let red = try #require(GameAttributes.Team.components(ofColour: "#FF8000"))
        #expect(red.red == 1 && red.green == 128.0 / 255 && red.blue == 0)
        #expect(GameAttributes.Team.components(ofColour: "#GG0000") == nil)
    }

    /// An app built against this package decodes the attributes of a server that sent names only,
    /// and an older app ignores the new keys.
    @Test func olderPayloadsStillDecode() throws {
        let old = Data(#"{"gameID":"g1","sport":"football","league":"Demo","home":{"name":"Arsenal"},"away":{"name":"Chelsea"},"startsAt":0}"#.utf8)
        let attributes = try JSONDecoder().decode(GameAttributes.self, from: old)
        #expect(attributes.home.code == "ARS" && attributes.home.primaryColour == nil && attributes.away.secondary == "#FFFFFF")

        struct OlderTeam: Decodable { var name: String; var abbreviation: String? }
        let new = try JSONEncoder().encode(GameAttributes.Team(name: "Chelsea", abbreviation: "CHE", primaryColour: "#034694", secondaryColour: "#FFFFFF"))
        let older = try JSONDecoder().decode(OlderTeam.self, from: new)
        #expect(older.name == "Chelsea" && older.abbreviation == "CHE")
    }
}
