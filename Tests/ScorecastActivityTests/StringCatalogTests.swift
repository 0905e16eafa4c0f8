import Foundation
import ScorecastCore
import Testing

/// The String Catalog an app ships is exactly the server's alert catalog: every key the server
/// can send has its English text on the phone, and nothing else.
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
}
