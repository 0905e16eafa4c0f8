import Foundation
import ScorecastCore
import Testing

/// The String Catalog an app ships is exactly the server's alert catalog: every key the server
/// can send has its text on the phone in every language the catalog ships, and nothing else.
@Suite struct StringCatalogTests {
    static let catalogPath = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Sources/ScorecastActivity/Localizable.xcstrings")

    @Test func shippedCatalogIsTheServersCatalog() throws {
        let shipped = try String(contentsOf: Self.catalogPath, encoding: .utf8)
        #expect(shipped == AlertCatalog.stringCatalog, "regenerate: scorecast strings > Sources/ScorecastActivity/Localizable.xcstrings")
    }

    @Test func everyKeyTheServerSendsHasEnglishText() throws {
        let data = try Data(contentsOf: Self.catalogPath)
        let catalog = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let strings = try #require(catalog["strings"] as? [String: [String: Any]])
        for template in AlertCatalog.allTemplates {
            let english = ((strings[template.key]?["localizations"] as? [String: Any])?["en"] as? [String: Any])?["stringUnit"] as? [String: String]
            #expect(english?["value"] == template.format, "\(template.key)")
            #expect(english?["state"] == "translated", "\(template.key)")
        }
        #expect(Set(strings.keys) == Set(AlertCatalog.allTemplates.map(\.key)))
    }

    /// A key without a translation would show English on a Spanish or Japanese phone: every key
    /// has every language, translated, with the English format's arguments, and a comment that
    /// tells the translator where it shows.
    @Test func everyKeyIsTranslatedIntoEveryLanguage() throws {
        let data = try Data(contentsOf: Self.catalogPath)
        let catalog = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let strings = try #require(catalog["strings"] as? [String: [String: Any]])
        #expect(AlertCatalog.languages == ["en", "es", "ja"])
        for template in AlertCatalog.allTemplates {
            let entry = strings[template.key]
            let comment = entry?["comment"] as? String ?? ""
            #expect(comment.hasPrefix("Alert "), "\(template.key) has no comment saying where it shows")
            let localizations = entry?["localizations"] as? [String: Any] ?? [:]
            #expect(Set(localizations.keys) == Set(AlertCatalog.languages), "\(template.key) has \(localizations.keys.sorted())")
            for language in AlertCatalog.languages {
                let unit = (localizations[language] as? [String: Any])?["stringUnit"] as? [String: String]
                #expect(unit?["state"] == "translated", "\(template.key) in \(language)")
                let value = unit?["value"] ?? ""
                #expect(Self.placeholders(value) == Self.placeholders(template.format), "\(template.key) in \(language): \(value)")
                if language != "en", template.format.contains(where: \.isLetter) {
                    #expect(value != template.format, "\(template.key) in \(language) is still English")
                }
            }
        }
    }

    /// The placeholders of `format`, sorted (`%@` or `%n$@`).
    static func placeholders(_ format: String) -> [String] {
        let regex = try? NSRegularExpression(pattern: "%([0-9]+\\$)?@")
        let range = NSRange(format.startIndex..., in: format)
        return (regex?.matches(in: format, range: range) ?? []).compactMap { Range($0.range, in: format).map { String(format[$0]) } }.sorted()
    }
}
