import Foundation
import JSON
import Testing
import ScorecastActivity
@testable import ScorecastCore

/// `Schema/event.schema.json` must say exactly what `FeedEventValidator` enforces.
@Suite struct EventSchemaTests {
    static func schema() throws -> JSONValue {
        let url = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Schema/event.schema.json")
        return try JSONParser().parse(Array(try Data(contentsOf: url)))
    }

    @Test func isDraft2020_12WithBothShapes() throws {
        let schema = try Self.schema()
        #expect(schema["$schema"] == "https://json-schema.org/draft/2020-12/schema")
        #expect(schema["oneOf"] == [["$ref": "#/$defs/event"], ["$ref": "#/$defs/batch"]])
        let events = try #require(schema["$defs"]?["batch"]?["properties"]?["events"])
        #expect(events["minItems"] == 1)
        #expect(events["maxItems"]?.integerValue == FeedEventLimits.defaultMaximumBatchSize)
        #expect(schema["$defs"]?["batch"]?["additionalProperties"] == false)
    }

    @Test func eventPropertiesAndLimitsMatch() throws {
        let event = try #require(try Self.schema()["$defs"]?["event"])
        let properties = try #require(event["properties"]?.objectValue)
        #expect(Set(properties.keys) == FeedEventValidator.topLevelKeys)
        #expect(event["additionalProperties"] == true, "unknown fields are ignored and counted, as the validator does")
        #expect(Set((event["required"]?.arrayValue ?? []).compactMap(\.stringValue)) == ["id", "game", "seq", "occurredAt", "kind"])
        #expect(properties["id"]?["maxLength"]?.integerValue == FeedEventLimits.idMaximumLength)
        #expect(properties["game"]?["maxLength"]?.integerValue == FeedEventLimits.gameMaximumLength)
        #expect(properties["seq"]?["maximum"]?.integerValue == FeedEventLimits.seqMaximum)
        #expect(properties["seq"]?["minimum"] == 1)
        #expect(properties["description"]?["maxLength"]?.integerValue == FeedEventLimits.descriptionMaximumLength)
        #expect(properties["player"]?["maxLength"]?.integerValue == FeedEventLimits.playerMaximumLength)
        #expect(properties["shortName"]?["maxLength"]?.integerValue == FeedEventLimits.shortNameMaximumLength)
        #expect(properties["card"]?["enum"] == .array(CardColour.allCases.map { .string($0.rawValue) }))
        #expect(properties["kind"]?["enum"] == .array(EventKind.allCases.map { .string($0.rawValue) }))
        #expect(properties["team"]?["enum"] == .array(TeamSide.allCases.map { .string($0.rawValue) }))
        let alerting = PriorityPolicy.defaultAlertingKinds.map(\.rawValue)
        let kindText = properties["kind"]?["description"]?.stringValue ?? ""
        #expect(alerting.allSatisfy { kindText.contains($0) })
    }

    @Test func scoreboardPropertiesAndLimitsMatch() throws {
        let defs = try #require(try Self.schema()["$defs"])
        let scoreboard = try #require(defs["scoreboard"])
        #expect(Set(scoreboard["properties"]?.objectValue?.keys.map { $0 } ?? []) == FeedEventValidator.scoreboardKeys)
        #expect(scoreboard["additionalProperties"] == true)
        #expect(defs["score"]?["maximum"]?.integerValue == FeedEventLimits.scoreMaximum)
        #expect(defs["score"]?["minimum"] == 0)
        #expect(defs["label"]?["oneOf"]?.arrayValue?.first?["maxLength"]?.integerValue == FeedEventLimits.labelMaximumLength)
        #expect(scoreboard["properties"]?["clockSeconds"]?["maximum"]?.doubleValue == FeedEventLimits.clockSecondsMaximum)
        #expect(scoreboard["properties"]?["addedTime"]?["oneOf"]?.arrayValue?.first?["maximum"]?.integerValue == FeedEventLimits.addedTimeMaximum)
        #expect(scoreboard["properties"]?["shootout"]?["oneOf"]?.arrayValue?.first?["properties"]?["home"]?["maximum"]?.integerValue == FeedEventLimits.shootoutMaximum)
        let extra = try #require(scoreboard["properties"]?["extra"])
        #expect(extra["maxProperties"]?.integerValue == FeedEventLimits.extraMaximumEntries)
        #expect(extra["propertyNames"]?["pattern"] == .string("^[A-Za-z][A-Za-z0-9_]{0,\(FeedEventLimits.extraKeyMaximumLength - 1)}$"))
        #expect(extra["additionalProperties"]?["oneOf"]?.arrayValue?.first?["maxLength"]?.integerValue == FeedEventLimits.extraStringMaximumLength)
    }

    /// The schema's patterns for a team's code and colours accept exactly what the validator's
    /// rules (the registration's) accept.
    @Test func teamIdentityPatternsMatchTheRules() throws {
        let defs = try #require(try Self.schema()["$defs"])
        let teams = try #require(defs["event"]?["properties"]?["teams"])
        #expect(Set(teams["properties"]?.objectValue?.keys.map { $0 } ?? []) == Set(TeamSide.allCases.map(\.rawValue)))
        let identity = try #require(defs["teamIdentity"]?["properties"]?.objectValue)
        #expect(Set(identity.keys) == FeedEventValidator.teamKeys)
        let samples = ["ARS", "ars", "S04", "AR", "ARSE", "A-S", "ßA", "ÅRS", "ＡＲＳ", "#EF0107", "EF0107", "#ef0107", "#ＡＢ", "#12345", "#1234567", "red", ""]
        for (key, rule) in [("code", GameAttributes.Team.validCode), ("primaryColour", GameAttributes.Team.validColour), ("secondaryColour", GameAttributes.Team.validColour)] {
            let pattern = try Regex(try #require(identity[key]?["pattern"]?.stringValue))
            for sample in samples {
                #expect((sample.wholeMatch(of: pattern) != nil) == (rule(sample) != nil), "\(key): \(sample)")
            }
        }
    }
}
