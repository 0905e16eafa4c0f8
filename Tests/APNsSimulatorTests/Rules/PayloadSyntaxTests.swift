@testable import APNsSimulator
import Foundation
import Testing

/// The payload syntax check run on every request: one JSON object, read by the strict parser.
@Suite struct PayloadSyntaxTests {
    private func accepts(_ bytes: [UInt8]) -> Bool {
        BroadcastRules.checkPayload(bytes, length: bytes.count) == nil
    }

    @Test(arguments: [
        #"{}"#, #" { "a" : [1, -2.5e+3, true, false, null, "x\"\u00e9\n"] } "#, #"{"aps":{"alert":"Schön ⚽"}}"#,
        #"{"a":{"b":{"c":[[],{}]}}}"#, #"{"n":0,"m":-0.0,"k":1E5}"#,
    ])
    func validObjects(text: String) {
        #expect(accepts(Array(text.utf8)))
    }

    @Test(arguments: [
        "", "[]", "1", #""s""#, "{", #"{"a":}"#, #"{"a":1,}"#, #"{'a':1}"#, #"{"a":01}"#, #"{"a":1.}"#,
        #"{"a":tru}"#, #"{"a":"\x"}"#, #"{"a":"\u12"}"#, "{\"a\":\"\u{01}\"}", #"{} {}"#, #"{"a" 1}"#, #"{"a":-}"#, #"{"a":1,"a":2}"#,
    ])
    func invalid(text: String) {
        // An empty body is PayloadEmpty, anything else here BadRequestPayload.
        #expect(BroadcastRules.checkPayload(Array(text.utf8), length: text.utf8.count) == (text.isEmpty ? .payloadEmpty : .badRequestPayload))
        #expect(!accepts(Array(text.utf8)))
    }

    @Test func invalidUTF8AndDeepNesting() {
        #expect(!accepts([0x7B, 0x22, 0x61, 0x22, 0x3A, 0x22, 0xC3, 0x28, 0x22, 0x7D]))
        #expect(!accepts([0x7B, 0x22, 0x61, 0x22, 0x3A, 0x22, 0xED, 0xA0, 0x80, 0x22, 0x7D]), "surrogates are not UTF-8")
        let deep = "{\"a\":" + String(repeating: "[", count: 100) + String(repeating: "]", count: 100) + "}"
        #expect(!accepts(Array(deep.utf8)))
    }

    @Test func agreesWithFoundationOnObjects() throws {
        let samples = [#"{"aps":{"timestamp":1764453600,"event":"update","content-state":{"homeScore":2}}}"#, #"{"a":[1,{"b":null}]}"#]
        for sample in samples {
            #expect(accepts(Array(sample.utf8)))
            #expect(try JSONSerialization.jsonObject(with: Data(sample.utf8)) is [String: Any])
        }
    }
}
