import Foundation
import Testing
@testable import JSON

@Suite struct JSONValueEncodingTests {
    @Test(arguments: [
        (JSONValue.null, "null"),
        (.bool(true), "true"),
        (.integer(-12), "-12"),
        (.double(75), "75"),
        (.double(-0.5), "-0.5"),
        (.double(0.1), "0.1"),
        (.double(1e300), "1e+300"),
        (.double(9_007_199_254_740_992), "9007199254740992.0"),
        (.double(1e16), "1e+16"),
        (.string("quote\" back\\ nl\n cr\r tab\t bell\u{07} é"), #""quote\" back\\ nl\n cr\r tab\t bell\u0007 é""#),
        (.string("/"), #""/""#),
        (.string(""), #""""#),
        // Escapes first, last and side by side: the writer copies the runs between them whole.
        (.string("\"\"ab\u{1F}\\"), #""\"\"ab\u001f\\""#),
        (.array([.integer(1), .array([])]), "[1,[]]"),
        (.object(["b": 1, "a": 2, "B": 3, "aa": 4, "é": 5]), #"{"B":3,"a":2,"aa":4,"b":1,"é":5}"#),
    ])
    func encodesCompactAndSorted(value: JSONValue, expected: String) throws {
        #expect(try value.encodedString() == expected)
    }

    @Test(arguments: [Double.nan, .infinity, -.infinity])
    func refusesNonFiniteNumbers(number: Double) {
        let value: JSONValue = ["aps": ["score": .array([.double(number)])]]
        #expect(throws: JSONEncodingError.nonFiniteNumber(path: "$.aps.score[0]")) {
            try value.encoded()
        }
    }

    @Test func namesTheFirstNonFiniteNumberInWritingOrder() {
        // Keys are written sorted, so "a" comes before "b" whatever the dictionary's order.
        let value: JSONValue = ["b": .double(.nan), "a": .array([.integer(1), .object(["x": .double(-.infinity)])])]
        #expect(throws: JSONEncodingError.nonFiniteNumber(path: "$.a[1].x")) {
            try value.encoded()
        }
    }

    @Test func encodingIsDeterministic() throws {
        var members: [String: JSONValue] = [:]
        for index in 0..<200 { members["k\(index)"] = .integer(index) }
        let first = try JSONValue.object(members).encoded()
        var reversed: [String: JSONValue] = [:]
        for index in (0..<200).reversed() { reversed["k\(index)"] = .integer(index) }
        #expect(try JSONValue.object(reversed).encoded() == first)
    }

    @Test func accessorsReadTheRightCase() {
        let value: JSONValue = ["s": "x", "i": 3, "d": 2.0, "f": 2.5, "b": false, "n": nil, "a": [1]]
        #expect(value["s"]?.stringValue == "x")
        #expect(value["i"]?.integerValue == 3)
        #expect(value["d"]?.integerValue == 2)
        #expect(value["f"]?.integerValue == nil)
        #expect(value["f"]?.doubleValue == 2.5)
        #expect(value["b"]?.boolValue == false)
        #expect(value["n"]?.isNull == true)
        #expect(value["a"]?.arrayValue == [.integer(1)])
        #expect(value["missing"] == nil)
        #expect(value["i"]?.typeName == "integer")
        #expect(value["f"]?.typeName == "number")
    }

    /// The one escaper used for hand-written JSON (log lines, problem bodies) is the encoder's.
    @Test(arguments: ["", "plain", "quote\" back\\ nl\n cr\r tab\t bell\u{07} nul\u{00} é ⚽", "</script>"])
    func quotedIsTheEncodersStringForm(text: String) throws {
        #expect(JSONValue.quoted(text) == (try JSONValue.string(text).encodedString()))
        #expect(try JSONParser().parse(JSONValue.quoted(text)) == .string(text))
    }

    @Test func encodableThroughFoundationKeepsEveryCase() throws {
        let value: JSONValue = ["s": "x", "i": 3, "f": 2.5, "b": true, "n": nil, "a": [1, "two"]]
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let text = String(decoding: try encoder.encode(value), as: UTF8.self)
        #expect(text == #"{"a":[1,"two"],"b":true,"f":2.5,"i":3,"n":null,"s":"x"}"#)
        #expect(try JSONParser().parse(text) == value)
    }
}
