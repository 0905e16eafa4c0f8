import Foundation
import Testing
@testable import JSON

/// ``JSONValueEncoder`` against the path it replaces: `JSONEncoder`'s bytes read back by
/// ``JSONParser`` (kept here only as the reference). Equal values, so equal bytes too.
@Suite struct JSONValueEncoderTests {
    static func reference(_ value: some Encodable, dates: (@Sendable (Date) -> JSONValue)? = nil) throws -> JSONValue {
        let encoder = JSONEncoder()
        if let dates {
            encoder.dateEncodingStrategy = .custom { date, encoder in
                var container = encoder.singleValueContainer()
                switch dates(date) {
                case .integer(let number): try container.encode(number)
                case .double(let number): try container.encode(number)
                case .string(let text): try container.encode(text)
                default: try container.encodeNil()
                }
            }
        }
        return try JSONParser().parse(encoder.encode(value))
    }

    static func expectSame(_ value: some Encodable, dates: (@Sendable (Date) -> JSONValue)? = nil) throws {
        let expected = try reference(value, dates: dates)
        let actual = try JSONValueEncoder(dateValue: dates).encode(value)
        #expect(actual == expected)
        #expect(try actual.encoded() == expected.encoded())
    }

    struct Numbers: Encodable {
        var doubles: [Double] = [
            0, -0.0, 1, -1, 0.1, 75.5, 1e-7, 1e300, 123_456_789_012_345, 9_007_199_254_740_992, -9_007_199_254_740_992,
            9_007_199_254_740_994, 1e16, .greatestFiniteMagnitude, .leastNonzeroMagnitude,
        ]
        var floats: [Float] = [0, 0.1, 3, -2.5, 1e10, 16_777_216, .greatestFiniteMagnitude]
        var ints: [Int] = [0, -1, .max, .min]
        var int8 = Int8.min, int16 = Int16.max, int32 = Int32.min, int64 = Int64.max
        var uint = UInt.max, uint8 = UInt8.max, uint16 = UInt16.max, uint32 = UInt32.max, uint64 = UInt64.max
        var small: UInt64 = 7
        var single = 2.0
        var flags = [true, false]
    }

    @Test func numbersReadBackAsTheirText() throws {
        try Self.expectSame(Numbers())
        try Self.expectSame(Numbers().single)
        try Self.expectSame(Float(0.1))
    }

    @Test(arguments: [Double.nan, .infinity, -.infinity])
    func nonFiniteNumbersThrowAsWithJSONEncoder(number: Double) {
        #expect(throws: EncodingError.self) { try Self.reference(["n": [number]]) }
        #expect(throws: EncodingError.self) { try JSONValueEncoder().encode(["n": [number]]) }
        #expect(throws: EncodingError.self) { try JSONValueEncoder().encode(number) }
        #expect(throws: EncodingError.self) { try JSONValueEncoder().encode(Float(number)) }
    }

    struct Optionals: Encodable {
        var present: String? = "here"
        var absent: String?
        var absentNumber: Double?
        var elements: [Int?] = [1, nil, 3]
        var explicitNull: Int?

        enum CodingKeys: String, CodingKey { case present, absent, absentNumber, elements, explicitNull }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encodeIfPresent(present, forKey: .present)
            try container.encodeIfPresent(absent, forKey: .absent)
            try container.encodeIfPresent(absentNumber, forKey: .absentNumber)
            try container.encode(elements, forKey: .elements)
            try container.encodeNil(forKey: .explicitNull)
        }
    }

    @Test func nilIsLeftOutUnlessEncodedAsNull() throws {
        try Self.expectSame(Optionals())
        let value = try JSONValueEncoder().encode(Optionals())
        #expect(value == ["present": "here", "elements": [1, nil, 3], "explicitNull": nil])
    }

    /// Every container kind, nested both ways, plus super-encoders.
    struct Containers: Encodable {
        enum Keys: String, CodingKey { case name, inner, list, parent, custom }

        func encode(to encoder: any Encoder) throws {
            var top = encoder.container(keyedBy: Keys.self)
            try top.encode("é ünïcødé 🏟 \"quoted\" back\\slash /slash\n\t\u{01}", forKey: .name)
            var inner = top.nestedContainer(keyedBy: Keys.self, forKey: .inner)
            try inner.encode(1.5, forKey: .name)
            var deeper = inner.nestedUnkeyedContainer(forKey: .list)
            try deeper.encode(true)
            var keyedInArray = deeper.nestedContainer(keyedBy: Keys.self)
            try keyedInArray.encode(Int8(3), forKey: .name)
            var arrayInArray = deeper.nestedUnkeyedContainer()
            try arrayInArray.encode("x")
            try arrayInArray.encodeNil()
            _ = deeper.superEncoder()
            var elementSuper = deeper.superEncoder().singleValueContainer()
            try elementSuper.encode(UInt16(9))
            var list = top.nestedUnkeyedContainer(forKey: .list)
            try list.encode(["k": [1, 2]])
            try list.encode(Empty())
            var parent = top.superEncoder().container(keyedBy: Keys.self)
            try parent.encode("from super", forKey: .name)
            var custom = top.superEncoder(forKey: .custom).unkeyedContainer()
            try custom.encode(Float(0.25))
            // Asking for the keyed container again writes into the same object.
            var again = encoder.container(keyedBy: Keys.self)
            try again.encode(Wrapper(inner: 4), forKey: .parent)
        }
    }

    struct Empty: Encodable {
        func encode(to encoder: any Encoder) throws {}
    }

    struct Wrapper: Encodable {
        var inner: Int

        func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode([inner])
        }
    }

    @Test func nestedKeyedUnkeyedSingleValueAndSuperContainers() throws {
        try Self.expectSame(Containers())
        let value = try JSONValueEncoder().encode(Containers())
        #expect(value["super"] == ["name": "from super"])
        #expect(value["inner"]?["list"] == [true, ["name": 3], ["x", nil], [:], 9])
        #expect(value["list"] == [["k": [1, 2]], [:]])
        #expect(value["parent"] == [4])
    }

    @Test func dictionariesWithStringAndIntegerKeys() throws {
        try Self.expectSame(["b": "1", "a": "2", "é": "3", "": "4"])
        try Self.expectSame([3: "three", -1: "minus one"])
        try Self.expectSame([String: Int]())
        try Self.expectSame([[Int]]())
    }

    struct Dated: Encodable {
        var at: Date
        var maybe: Date?
        var many: [Date]
    }

    @Test func datesThroughTheHookOrTheirOwnConformance() throws {
        let dated = Dated(
            at: Date(timeIntervalSinceReferenceDate: 786_146_820.25), maybe: Date(timeIntervalSinceReferenceDate: 1),
            many: [Date(timeIntervalSinceReferenceDate: -0.5), Date(timeIntervalSince1970: 0)])
        try Self.expectSame(dated)
        try Self.expectSame(dated, dates: { .string("\($0.timeIntervalSince1970)") })
        try Self.expectSame(dated, dates: { .integer(Int($0.timeIntervalSince1970)) })
        try Self.expectSame(dated, dates: { .number($0.timeIntervalSinceReferenceDate) })
        try Self.expectSame(dated.at, dates: { .number($0.timeIntervalSinceReferenceDate) })
        #expect(try JSONValueEncoder(dateValue: { _ in "then" }).encode(dated) == ["at": "then", "maybe": "then", "many": ["then", "then"]])
    }

    @Test func aTopLevelValueThatEncodesNothingIsRefused() {
        #expect(throws: EncodingError.self) { try Self.reference(Empty()) }
        #expect(throws: EncodingError.self) { try JSONValueEncoder().encode(Empty()) }
    }

    @Test func theErrorNamesThePathOfTheBadNumber() throws {
        struct Holder: Encodable { var values: [String: [Double]] }
        do {
            _ = try JSONValueEncoder().encode(Holder(values: ["clock": [1, .nan]]))
            Issue.record("a NaN was encoded")
        } catch EncodingError.invalidValue(_, let context) {
            #expect(context.codingPath.map(\.stringValue) == ["values", "clock", "Index 1"])
        }
    }

    @Test(arguments: [0.0, -0.0, 1, 2.5, -3, 1e15, 9_007_199_254_740_992, 9_007_199_254_740_994, 1e16, 0.1])
    func numberIsWhatItsTextParsesAs(number: Double) throws {
        #expect(JSONValue.number(number) == (try Self.reference(number)))
    }
}
