import HTTPServer
import JSON
import Testing

@Suite("JSON request bodies")
struct JSONBodyTests {
    private func request(_ json: String) -> HTTPRequest {
        HTTPRequest(method: .post, path: "/", headers: ["Content-Type": "application/json"], body: Array(json.utf8))
    }

    private func problem(_ body: () throws -> Void) -> Problem? {
        do {
            try body()
            return nil
        } catch {
            return error as? Problem
        }
    }

    @Test func aDocumentParsesWithTheStrictParser() throws {
        let body = try request(#"{"id":"g1","score":[1,0],"venue":null}"#).jsonBody()
        #expect(body == ["id": "g1", "score": [1, 0], "venue": nil])
        #expect(try request(#"{"id":"g1"}"#).jsonObject() == ["id": "g1"])
    }

    @Test(arguments: [
        ("", "the request body is empty; expected a JSON document"),
        (#"{"id": }"#, "the request body is not valid JSON: invalid JSON at byte 7: unexpected character, expected a value"),
        (#"{"id":"g1",}"#, "the request body is not valid JSON: invalid JSON at byte 11: expected a string key in object"),
        (#"{"id":"g1"} extra"#, "the request body is not valid JSON: invalid JSON at byte 12: unexpected content after the JSON value"),
        (#"{"id":"a","id":"b"}"#, #"the request body is not valid JSON: invalid JSON at byte 10: duplicate object key "id""#),
        (String(repeating: "[", count: 600), "the request body is not valid JSON: invalid JSON at byte 64: nesting deeper than 64 levels"),
        ("{\"id\":\"\u{01}\"}", "the request body is not valid JSON: invalid JSON at byte 7: unescaped control character in string"),
    ])
    func syntaxErrorsAre400WithTheOffsetAndReason(json: String, expected: String) throws {
        let problem = try #require(problem { _ = try request(json).jsonBody() })
        #expect(problem.status == .badRequest)
        #expect(problem.detail == expected)
    }

    @Test func aDocumentThatIsNotAnObjectIs422() throws {
        let problem = try #require(problem { _ = try request("[1]").jsonObject() })
        #expect(problem.status == .unprocessableContent)
        #expect(problem.detail == "the request body must be a JSON object, got array")
    }

    @Test func contentTypeCheck() throws {
        #expect(throws: Never.self) { try HTTPRequest(method: .post, path: "/", headers: ["Content-Type": "application/problem+json"]).requireJSONContentType() }
        #expect(throws: Never.self) { try HTTPRequest(method: .post, path: "/", headers: ["content-type": "Application/JSON ; charset=utf-8"]).requireJSONContentType() }
        #expect { try HTTPRequest(method: .post, path: "/").requireJSONContentType() } throws: { ($0 as? Problem)?.status == .unsupportedMediaType }
        #expect { try HTTPRequest(method: .post, path: "/", headers: ["Content-Type": "text/json-ish"]).requireJSONContentType() } throws: { ($0 as? Problem)?.status == .unsupportedMediaType }
    }
}
