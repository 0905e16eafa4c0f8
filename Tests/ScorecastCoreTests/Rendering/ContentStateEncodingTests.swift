import APNsCore
import Foundation
import JSON
import ScorecastActivity
import TestSupport
import Testing
@testable import ScorecastCore

/// `content-state` through ``JSONValueEncoder`` against the path it replaced:
/// `JSONEncoder` with a custom date strategy, its bytes parsed back by ``JSONParser``. Kept here
/// only as the reference; both must give the same value, hence the same bytes, for every state.
@Suite struct ContentStateEncodingTests {
    static func reference(_ value: some Encodable, _ encoding: ContentDateEncoding) throws -> JSONValue {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            switch encoding.jsonValue(for: date) {
            case .double(let seconds): try container.encode(seconds)
            case .integer(let seconds): try container.encode(seconds)
            case .string(let text): try container.encode(text)
            default: try container.encodeNil()
            }
        }
        return try JSONParser().parse(encoder.encode(value))
    }

    static func expectSame(_ content: ContentState, _ encoding: ContentDateEncoding, _ sample: Int) throws {
        let expected = try reference(content, encoding)
        let actual = try ContentStateRenderer.encode(content, dateEncoding: encoding)
        #expect(actual == expected, "sample \(sample), \(encoding)")
        #expect(try actual.encoded() == expected.encoded(), "sample \(sample), \(encoding)")
    }

    @Test(arguments: ContentDateEncoding.allCases)
    func randomStatesEncodeAsJSONEncoderDid(encoding: ContentDateEncoding) throws {
        var random = SeededGenerator(seed: 18)
        for sample in 0..<400 {
            try Self.expectSame(RandomContentState.make(using: &random), encoding, sample)
        }
    }

    @Test(arguments: ContentDateEncoding.allCases)
    func everyOptionalPresentAndEveryOptionalAbsent(encoding: ContentDateEncoding) throws {
        try Self.expectSame(RandomContentState.full, encoding, -1)
        try Self.expectSame(RandomContentState.bare, encoding, -2)
        let full = try ContentStateRenderer.encode(RandomContentState.full, dateEncoding: encoding)
        #expect(full.objectValue?.count == 13)
        #expect(full["clock"]?.objectValue?.count == 8)
        #expect(full["lastEvent"]?.objectValue?.count == 10)
        let bare = try ContentStateRenderer.encode(RandomContentState.bare, dateEncoding: encoding)
        #expect(bare == ["version": 2, "status": "scheduled", "homeScore": 0, "awayScore": 0, "scorers": [], "cards": [],
                         "extra": [:], "updatedAt": encoding.jsonValue(for: RandomContentState.bare.updatedAt)])
    }

    @Test(arguments: [Double.nan, .infinity, -.infinity])
    func aNonFiniteClockNumberIsStillRefused(number: Double) {
        var content = RandomContentState.full
        content.clock?.seconds = number
        #expect(throws: EncodingError.self) { try Self.reference(content, .referenceDate) }
        #expect(throws: LiveActivityPayloadError.nonFiniteNumber(path: "content-state")) {
            try ContentStateRenderer.encode(content, dateEncoding: .referenceDate)
        }
        content = RandomContentState.full
        content.clock?.periodLength = number
        #expect(throws: LiveActivityPayloadError.nonFiniteNumber(path: "content-state")) {
            try ContentStateRenderer.encode(content, dateEncoding: .unixSeconds)
        }
    }

    @Test(arguments: ContentDateEncoding.allCases)
    func pushToStartAttributesEncodeAsJSONEncoderDid(encoding: ContentDateEncoding) throws {
        let samples = [
            GameAttributes(
                gameID: "g1", sport: "soccer", league: "Premier League", home: .init(name: "Arsenal", shortName: "ARS", abbreviation: "AFC"),
                away: .init(name: "Chelsea ⚽️ \"Blues\""), startsAt: Date(timeIntervalSince1970: 1_764_452_700.123_4)),
            GameAttributes(
                gameID: "", sport: "", league: "", home: .init(name: "Home"), away: .init(name: "Away"),
                startsAt: Date(timeIntervalSinceReferenceDate: -1)),
        ]
        for attributes in samples {
            #expect(try encoding.json(attributes) == Self.reference(attributes, encoding))
        }
    }

    @Test func datesAreWrittenPerEncoding() throws {
        let content = RandomContentState.full
        let at = content.updatedAt
        #expect(try ContentStateRenderer.encode(content, dateEncoding: .referenceDate)["updatedAt"] == .double(at.timeIntervalSinceReferenceDate))
        #expect(try ContentStateRenderer.encode(content, dateEncoding: .unixSeconds)["updatedAt"] == .integer(Int(at.timeIntervalSince1970.rounded(.down))))
        #expect(try ContentStateRenderer.encode(content, dateEncoding: .iso8601)["updatedAt"] == "2025-11-29T21:45:00Z")
    }
}
