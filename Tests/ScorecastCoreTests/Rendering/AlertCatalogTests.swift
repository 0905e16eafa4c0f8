import Foundation
import JSON
import Testing
@testable import ScorecastCore

@Suite struct AlertCatalogTests {
    static let all: [AlertCatalog.Argument: String] = [
        .home: "Arsenal", .away: "Chelsea", .team: "Arsenal", .player: "Saka", .homeScore: "2", .awayScore: "1",
        .period: "2H", .clock: "67'",
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

    @Test(arguments: [
        (EventKind.score, Set<AlertCatalog.Condition>([.ownGoal]), "SCORE_OWN_GOAL_MINUTE_TITLE", "40' Own goal by Demiral, goal for Italy"),
        (.score, [.penaltyGoal], "SCORE_PENALTY_MINUTE_TITLE", "40' Penalty goal: Demiral (Italy)"),
        (.score, [], "SCORE_PLAYER_MINUTE_TITLE", "40' Goal: Demiral (Italy)"),
        (.card, [.redCard], "CARD_RED_MINUTE_TITLE", "40' Red card: Demiral (Italy)"),
        (.card, [.secondYellowCard], "CARD_SECOND_YELLOW_MINUTE_TITLE", "40' Second yellow, sent off: Demiral (Italy)"),
        (.card, [.yellowCard], "CARD_YELLOW_MINUTE_TITLE", "40' Yellow card: Demiral (Italy)"),
        (.card, [], "CARD_PLAYER_TITLE", "Card for Demiral (Italy)"),
    ] as [(EventKind, Set<AlertCatalog.Condition>, String, String)])
    func titlesAFanUnderstands(kind: EventKind, conditions: Set<AlertCatalog.Condition>, key: String, english: String) {
        let values: [AlertCatalog.Argument: String] = [
            .home: "Turkey", .away: "Italy", .homeScore: "0", .awayScore: "1", .team: "Italy", .player: "Demiral", .minute: "40'",
        ]
        let alert = AlertCatalog.alert(for: kind, values: values, conditions: conditions, style: .plainText, sound: nil)
        #expect(alert.title == .plain(english))
        let localized = AlertCatalog.alert(for: kind, values: values, conditions: conditions, style: .localized, sound: nil)
        guard case .localized(let gotKey, _)? = localized.title else {
            Issue.record("no localized title")
            return
        }
        #expect(gotKey == key)
    }

    @Test func anOwnGoalWithoutAPlayerNeverCreditsTheScorer() {
        let values: [AlertCatalog.Argument: String] = [.home: "Turkey", .away: "Italy", .homeScore: "0", .awayScore: "1", .team: "Italy"]
        let alert = AlertCatalog.alert(for: .score, values: values, conditions: [.ownGoal], style: .plainText, sound: nil)
        #expect(alert.title == .plain("Own goal: goal for Italy"))
    }

    @Test func conditionsComeFromTheEvent() {
        let at = Date(timeIntervalSince1970: 0)
        #expect(AlertCatalog.conditions(of: FeedEvent(id: "a", game: "g", seq: 1, occurredAt: at, kind: .score, ownGoal: true, penalty: false)) == [.ownGoal])
        #expect(AlertCatalog.conditions(of: FeedEvent(id: "a", game: "g", seq: 1, occurredAt: at, kind: .card, card: .secondYellow)) == [.secondYellowCard])
        #expect(AlertCatalog.conditions(of: FeedEvent(id: "a", game: "g", seq: 1, occurredAt: at, kind: .score, penalty: true)) == [.penaltyGoal])
        #expect(AlertCatalog.conditions(of: FeedEvent(id: "v", game: "g", seq: 2, occurredAt: at, kind: .videoReview, disallows: "a")) == [.goalDisallowed])
        #expect(AlertCatalog.conditions(of: FeedEvent(id: "v", game: "g", seq: 2, occurredAt: at, kind: .videoReview)) == [])
    }

    @Test func aSendingOffAlertsAYellowDoesNot() {
        let at = Date(timeIntervalSince1970: 0)
        let policy = PriorityPolicy()
        #expect(policy.isAlerting(FeedEvent(id: "a", game: "g", seq: 1, occurredAt: at, kind: .card, card: .red)))
        #expect(policy.isAlerting(FeedEvent(id: "a", game: "g", seq: 1, occurredAt: at, kind: .card, card: .secondYellow)))
        #expect(!policy.isAlerting(FeedEvent(id: "a", game: "g", seq: 1, occurredAt: at, kind: .card, card: .yellow)))
        #expect(!policy.isAlerting(FeedEvent(id: "a", game: "g", seq: 1, occurredAt: at, kind: .card, alert: false, card: .red)))
    }

    @Test func aSendingOffIsRoutineOnTheLightTier() {
        let at = Date(timeIntervalSince1970: 1_764_450_000)
        #expect(!PriorityPolicy.lightTier.isAlerting(FeedEvent(id: "a", game: "g", seq: 1, occurredAt: at, kind: .card, card: .red)))
        #expect(!PriorityPolicy.lightTier.isAlerting(FeedEvent(id: "a", game: "g", seq: 1, occurredAt: at, kind: .card, card: .secondYellow)))
    }

    @Test func bodyIsTheScoreLine() {
        let plain = AlertCatalog.alert(for: .score, values: Self.all, style: .plainText, sound: nil)
        #expect(plain.body == .plain("Arsenal 2–1 Chelsea"))
        let localized = AlertCatalog.alert(for: .score, values: Self.all, style: .localized, sound: nil)
        #expect(localized.body == .localized(key: "SCORELINE_BODY", arguments: ["Arsenal", "2", "1", "Chelsea"]))
    }

    @Test(arguments: [
        ([AlertCatalog.Argument.player, .team], "GOAL_DISALLOWED_PLAYER_TITLE", "Goal disallowed: Saka (Arsenal)"),
        ([.team], "GOAL_DISALLOWED_TEAM_TITLE", "Arsenal goal disallowed"),
        ([], "GOAL_DISALLOWED_TITLE", "Goal disallowed"),
    ])
    func aReviewThatTakesBackAGoalSaysSo(optional: [AlertCatalog.Argument], key: String, english: String) {
        var values = Self.all.filter { [.home, .away, .homeScore, .awayScore].contains($0.key) }
        for argument in optional { values[argument] = Self.all[argument] }
        let plain = AlertCatalog.alert(for: .videoReview, values: values, conditions: [.goalDisallowed], style: .plainText, sound: nil)
        #expect(plain.title == .plain(english))
        let localized = AlertCatalog.alert(for: .videoReview, values: values, conditions: [.goalDisallowed], style: .localized, sound: nil)
        guard case .localized(let gotKey, _)? = localized.title else {
            Issue.record("no localized title")
            return
        }
        #expect(gotKey == key)
        // Any other review keeps the plain video-review title.
        let review = AlertCatalog.alert(for: .videoReview, values: values, style: .plainText, sound: nil)
        #expect(review.title == .plain("Video review"))
    }

    @Test func everyTranslationHasEveryKeyWithItsArguments() {
        let keys = Set(AlertCatalog.allTemplates.map(\.key))
        #expect(AlertCatalog.languages == ["en", "es", "ja"])
        for (language, formats) in AlertCatalog.translations {
            #expect(Set(formats.keys) == keys, "\(language): missing \(keys.subtracting(formats.keys).sorted()), extra \(Set(formats.keys).subtracting(keys).sorted())")
        }
        for template in AlertCatalog.allTemplates {
            for language in AlertCatalog.languages {
                let format = AlertCatalog.format(of: template, in: language) ?? ""
                #expect(!format.isEmpty, "\(template.key) lacks \(language)")
                // Filled with distinct markers, a translation shows each argument exactly once.
                let markers = template.arguments.indices.map { "<\($0 + 1)>" }
                let filled = AlertCatalog.fill(format, with: markers)
                for marker in markers {
                    #expect(filled.components(separatedBy: marker).count == 2, "\(template.key) in \(language) shows \(marker) not once: \(format)")
                }
                #expect(!filled.contains("%"), "\(template.key) in \(language) has a stray placeholder: \(format)")
            }
        }
    }

    @Test func translationsSayTheSameThingInTheFansLanguage() {
        func title(_ key: String, _ language: String, _ arguments: [String]) -> String? {
            AlertCatalog.allTemplates.first { $0.key == key }
                .flatMap { AlertCatalog.format(of: $0, in: language) }
                .map { AlertCatalog.fill($0, with: arguments) }
        }
        #expect(title("SCORE_PLAYER_MINUTE_TITLE", "es", ["67'", "Saka", "Arsenal"]) == "67' ¡Gol! Saka (Arsenal)")
        #expect(title("SCORE_PLAYER_TITLE", "ja", ["Saka", "Arsenal"]) == "ArsenalのSakaが得点")
        #expect(title("GOAL_DISALLOWED_TITLE", "es", []) == "Gol anulado")
        #expect(title("GOAL_DISALLOWED_TITLE", "ja", []) == "ゴール取り消し")
        #expect(title("FINAL_TITLE", "ja", ["Arsenal", "Chelsea"]) == "試合終了：Arsenal 対 Chelsea")
    }

    @Test func stringCatalogListsEveryKeyOnceWithItsEnglishText() throws {
        let catalog = try JSONParser().parse(AlertCatalog.stringCatalog)
        let strings = try #require(catalog["strings"]?.objectValue)
        #expect(strings.count == AlertCatalog.allTemplates.count)
        for template in AlertCatalog.allTemplates {
            #expect(strings[template.key]?["localizations"]?["en"]?["stringUnit"]?["value"]?.stringValue == template.format)
        }
        #expect(strings["SCORE_PLAYER_TITLE"]?["comment"] == .string(
            "Alert title when a player scores, minute unknown (any sport). Arguments: 1 player's short name (Saka), 2 name of the team concerned."))
        #expect(strings["GOAL_DISALLOWED_TITLE"]?["localizations"]?["ja"]?["stringUnit"]?["value"] == "ゴール取り消し")
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
