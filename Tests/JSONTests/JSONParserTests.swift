import Testing
@testable import JSON

@Suite struct JSONParserTests {
    @Test(arguments: [
        ("null", JSONValue.null),
        ("true", .bool(true)),
        (" false ", .bool(false)),
        ("0", .integer(0)),
        ("-0", .integer(0)),
        ("42", .integer(42)),
        ("-17", .integer(-17)),
        ("9007199254740993", .integer(9_007_199_254_740_993)),
        ("1.5", .double(1.5)),
        ("1e3", .double(1000)),
        ("-2.5E-3", .double(-0.0025)),
        ("99999999999999999999", .double(1e20)),
        (#""a\"b\\c\/d\n\t\u00e9\ud83d\ude00""#, .string("a\"b\\c/d\n\té😀")),
        ("\"é\"", .string("é")),
        ("[]", .array([])),
        ("[1, \"x\", [null]]", .array([.integer(1), .string("x"), .array([.null])])),
        ("{}", .object([:])),
        (#"{"a": {"b": [true]}, "c": 1}"#, .object(["a": .object(["b": .array([.bool(true)])]), "c": .integer(1)])),
    ])
    func parsesValidJSON(text: String, expected: JSONValue) throws {
        #expect(try JSONParser().parse(text) == expected)
    }

    @Test(arguments: [
        ("", 0, "unexpected end"),
        ("nul", 0, "invalid literal"),
        ("01", 0, "leading zeros"),
        ("1.", 0, "decimal point"),
        ("1e", 0, "exponent"),
        ("-", 0, "invalid number"),
        ("+1", 0, "unexpected character"),
        ("1e400", 0, "out of range"),
        ("[1,]", 3, "unexpected character"),
        ("[1 2]", 3, "expected ',' or ']'"),
        (#"{"a":1,"a":2}"#, 7, "duplicate object key"),
        (#"{"a" 1}"#, 5, "expected ':'"),
        (#"{a:1}"#, 1, "expected a string key"),
        ("\"abc", 0, "unterminated string"),
        ("\"a\u{01}\"", 2, "control character"),
        (#""\x""#, 1, "invalid escape"),
        (#""\ud800""#, 1, "high surrogate"),
        (#""\udc00""#, 1, "lone low surrogate"),
        (#""\u12g4""#, 5, "hex digit"),
        ("{} x", 3, "after the JSON value"),
        ("[1", 2, "end of input inside an array"),
    ])
    func refusesInvalidJSON(text: String, offset: Int, fragment: String) {
        #expect {
            try JSONParser().parse(text)
        } throws: { error in
            guard let error = error as? JSONParseError else { return false }
            return error.offset == offset && error.message.contains(fragment)
        }
    }

    @Test(
        arguments: [
            [0xC3, 0x28],  // a lead byte followed by ASCII
            [0xC0, 0xAF],  // an overlong "/"
            [0xED, 0xA0, 0x80],  // a UTF-16 surrogate written as UTF-8
            [0xE2, 0x82],  // cut short
            [0x80],  // a lone continuation byte
            [0xF4, 0x90, 0x80, 0x80],  // above U+10FFFF
        ] as [[UInt8]])
    func refusesInvalidUTF8(inner: [UInt8]) {
        for bytes in [[0x22] + inner + [0x22], [0x22, 0x5C, 0x6E] + inner + [0x22]] {  // plain, and after an escape
            #expect(throws: JSONParseError(offset: 0, message: "string is not valid UTF-8")) {
                try JSONParser().parse(bytes)
            }
        }
    }

    @Test func keepsValidMultibyteTextAsIs() throws {
        // Includes U+FFFD itself: valid input that happens to be the replacement character.
        let text = "é Ødegaard 🏟️ \u{FFFD} 中"
        #expect(try JSONParser().parse(Array("\"\(text)\"".utf8)) == .string(text))
        #expect(try JSONParser().parse(Array("\"\\t\(text)\"".utf8)) == .string("\t" + text))
    }

    @Test func boundsNestingDepth() throws {
        let parser = JSONParser(maximumDepth: 3)
        #expect(try parser.parse("[[[1]]]") == .array([.array([.array([.integer(1)])])]))
        #expect(throws: JSONParseError.self) { try parser.parse("[[[[1]]]]") }
        let hostile = String(repeating: "[", count: 100_000)
        #expect(throws: JSONParseError.self) { try JSONParser().parse(hostile) }
    }

    @Test func roundTripsThroughEncoding() throws {
        let text = #"{"b":[1,2.5,"x",null,true],"a":{"z":"é\n","y":-3}}"#
        let value = try JSONParser().parse(text)
        let again = try JSONParser().parse(try value.encoded())
        #expect(again == value)
        #expect(try value.encodedString() == #"{"a":{"y":-3,"z":"é\n"},"b":[1,2.5,"x",null,true]}"#)
    }
}
