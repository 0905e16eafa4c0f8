@testable import APNsSimulator
import Foundation
import Testing

/// The payload syntax check run on every request.
@Suite struct JSONSyntaxTests {
    @Test(arguments: [
        #"{}"#, #" { "a" : [1, -2.5e+3, true, false, null, "x\"\u00e9\n"] } "#, #"{"aps":{"alert":"Schön ⚽"}}"#,
        #"{"a":{"b":{"c":[[],{}]}}}"#, #"{"n":0,"m":-0.0,"k":1E5}"#,
    ])
    func validObjects(text: String) {
        #expect(JSONSyntax.isObject(Array(text.utf8)))
    }

    @Test(arguments: [
        "", "[]", "1", #""s""#, "{", #"{"a":}"#, #"{"a":1,}"#, #"{'a':1}"#, #"{"a":01}"#, #"{"a":1.}"#,
        #"{"a":tru}"#, #"{"a":"\x"}"#, #"{"a":"\u12"}"#, "{\"a\":\"\u{01}\"}", #"{} {}"#, #"{"a" 1}"#, #"{"a":-}"#,
    ])
    func invalid(text: String) {
        #expect(!JSONSyntax.isObject(Array(text.utf8)))
    }

    @Test func invalidUTF8AndDeepNesting() {
        #expect(!JSONSyntax.isObject([0x7B, 0x22, 0x61, 0x22, 0x3A, 0x22, 0xC3, 0x28, 0x22, 0x7D]))
        #expect(!JSONSyntax.isObject([0x7B, 0x22, 0x61, 0x22, 0x3A, 0x22, 0xED, 0xA0, 0x80, 0x22, 0x7D]), "surrogates are not UTF-8")
        let deep = "{\"a\":" + String(repeating: "[", count: 100) + String(repeating: "]", count: 100) + "}"
        #expect(!JSONSyntax.isObject(Array(deep.utf8)))
    }

    @Test func agreesWithFoundationOnObjects() throws {
        let samples = [#"{"aps":{"timestamp":1764453600,"event":"update","content-state":{"homeScore":2}}}"#, #"{"a":[1,{"b":null}]}"#]
        for sample in samples {
            #expect(JSONSyntax.isObject(Array(sample.utf8)))
            #expect(try JSONSerialization.jsonObject(with: Data(sample.utf8)) is [String: Any])
        }
    }
}
