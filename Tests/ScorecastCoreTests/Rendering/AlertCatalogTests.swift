import Testing
@testable import ScorecastCore

@Suite struct AlertCatalogTests {
    static let all: [AlertCatalog.Argument: String] = [
        .home: "Arsenal", .away: "Chelsea", .team: "Arsenal", .player: "Saka", .homeScore: "2", .awayScore: "1",
        .period: "2H", .clock: "67'", .description: "Curled in",
    ]

    @Test func everyKindHasATitleThatNeedsNothingOptional() {
        for kind in EventKind.allCases {
            let variants = AlertCatalog.titles[kind] ?? []
            #expect(!variants.isEmpty, "\(kind) has no title")
            let fallback = variants.last?.arguments ?? [.player]
            let alwaysKnown: Set<AlertCatalog.Argument> = [.home, .away, .homeScore, .awayScore]
            #expect(fallback.allSatisfy(alwaysKnown.contains), "\(kind)'s last title variant needs \(fallback)")
        }
    }

    @Test func keysAreUniqueAndFormatsMatchTheirArguments() {
        let templates = AlertCatalog.allTemplates
        #expect(Set(templates.map(\.key)).count == templates.count)
        for template in templates {
            let numbered = (1...max(1, template.arguments.count)).filter { template.format.contains("%\($0)$@") }.count
            let plain = template.format.components(separatedBy: "%@").count - 1
            #expect(template.arguments.count < 2 ? plain == template.arguments.count : numbered == template.arguments.count && plain == 0, "\(template.key)")
        }
    }

    @Test(arguments: [
        (EventKind.score, [AlertCatalog.Argument.team, .player], "SCORE_PLAYER_TITLE", "Saka scores for Arsenal"),
        (.score, [.team], "SCORE_TEAM_TITLE", "Arsenal scores"),
        (.score, [], "SCORE_TITLE", "Score update"),
        (.final, [], "FINAL_TITLE", "Final: Arsenal vs Chelsea"),
        (.start, [], "START_TITLE", "Arsenal vs Chelsea has started"),
        (.card, [.player, .team], "CARD_PLAYER_TITLE", "Card for Saka (Arsenal)"),
        (.period, [.period], "PERIOD_TITLE", "Period: 2H"),
    ])
    func picksTheMostSpecificTitle(kind: EventKind, optional: [AlertCatalog.Argument], key: String, english: String) {
        var values = Self.all.filter { [.home, .away, .homeScore, .awayScore].contains($0.key) }
        for argument in optional { values[argument] = Self.all[argument] }
        let localized = AlertCatalog.alert(for: kind, values: values, style: .localized, sound: "default")
        guard case .localized(let gotKey, let arguments)? = localized.title else {
            Issue.record("expected a localized title")
            return
        }
        #expect(gotKey == key)
        let plain = AlertCatalog.alert(for: kind, values: values, style: .plainText, sound: nil)
        #expect(plain.title == .plain(english))
        // The plain text is exactly the English format filled with the loc-args.
        let format = AlertCatalog.allTemplates.first { $0.key == key }?.format ?? ""
        #expect(AlertCatalog.fill(format, with: arguments) == english)
        #expect(localized.sound == "default")
        #expect(plain.sound == nil)
    }

    @Test func bodyAddsTheDescriptionWhenThereIsOne() {
        let withDescription = AlertCatalog.alert(for: .score, values: Self.all, style: .plainText, sound: nil)
        #expect(withDescription.body == .plain("Arsenal 2–1 Chelsea · Curled in"))
        var values = Self.all
        values[.description] = ""
        let without = AlertCatalog.alert(for: .score, values: values, style: .localized, sound: nil)
        #expect(without.body == .localized(key: "SCORELINE_BODY", arguments: ["Arsenal", "2", "1", "Chelsea"]))
    }

    @Test func stringCatalogListsEveryKeyOnceWithItsEnglishText() throws {
        let catalog = try JSONParser().parse(AlertCatalog.stringCatalog)
        let strings = try #require(catalog["strings"]?.objectValue)
        #expect(strings.count == AlertCatalog.allTemplates.count)
        for template in AlertCatalog.allTemplates {
            #expect(strings[template.key]?["localizations"]?["en"]?["stringUnit"]?["value"]?.stringValue == template.format)
        }
        #expect(strings["SCORE_PLAYER_TITLE"]?["comment"] == "Arguments: 1 player, 2 team.")
        #expect(catalog["sourceLanguage"] == "en")
    }

    @Test(arguments: [
        ("%@ vs %@", ["A", "B"], "A vs B"),
        ("%@ and %@", ["%@", "x"], "%@ and x"),
        ("none", ["A"], "none"),
        ("%@%@", ["A"], "A"),
        ("%2$@ before %1$@", ["A", "B"], "B before A"),
        ("%1$@ %3$@ 100%", ["A", "B"], "A  100%"),
    ])
    func fillsPlaceholdersInOrder(format: String, arguments: [String], expected: String) {
        #expect(AlertCatalog.fill(format, with: arguments) == expected)
    }
}
