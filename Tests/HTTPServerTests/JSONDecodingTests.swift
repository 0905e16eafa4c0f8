import Foundation
import HTTPServer
import Testing

@Suite("decodeJSON problems")
struct JSONDecodingTests {
    struct Game: Decodable, Equatable {
        enum Status: String, Decodable { case scheduled, live, final }
        var id: String
        var status: Status
        var score: [UInt8]
        var starts: Date
        var venue: Venue?
        struct Venue: Decodable, Equatable { var name: String; var capacity: Int32 }
    }

    private func problem(_ json: String) -> Problem? {
        let request = HTTPRequest(method: .post, path: "/", headers: ["Content-Type": "application/json"], body: Array(json.utf8))
        do {
            _ = try request.decodeJSON(Game.self)
            return nil
        } catch {
            return error as? Problem
        }
    }

    @Test func validDocumentsDecode() throws {
        let request = HTTPRequest(method: .post, path: "/", body: Array(#"{"id":"g1","status":"live","score":[1,0],"starts":"2025-05-20T18:30:00Z","venue":null}"#.utf8))
        let game = try request.decodeJSON(Game.self)
        #expect(game.status == .live)
        #expect(game.score == [1, 0])
        #expect(game.starts == Date(timeIntervalSince1970: 1_747_765_800))
    }

    @Test(arguments: [
        (#"{"id":"g1","status":"live","score":[1,0],"starts":"2025-05-20T18:30:00Z","venue":{"name":"x"}}"#, "venue.capacity", "is required"),
        (#"{"id":"g1","status":"live","score":[1,300],"starts":"2025-05-20T18:30:00Z"}"#, "score[1]", "expected a non-negative integer between 0 and 255, found 300"),
        (#"{"id":"g1","status":"live","score":[1,-1],"starts":"2025-05-20T18:30:00Z"}"#, "score[1]", "expected a non-negative integer between 0 and 255, found -1"),
        (#"{"id":7,"status":"live","score":[],"starts":"2025-05-20T18:30:00Z"}"#, "id", "expected a string, found the number 7"),
        (#"{"id":"g1","status":null,"score":[],"starts":"2025-05-20T18:30:00Z"}"#, "status", "must not be null; expected a value of type Status"),
        (#"{"id":"g1","status":"live","score":{},"starts":"2025-05-20T18:30:00Z"}"#, "score", "expected an array, found an object"),
        (#"{"id":"g1","status":"live","score":[],"starts":"20 May"}"#, "starts", "expected an ISO 8601 date such as 2025-05-20T18:30:00Z, found '20 May'"),
        (#"{"id":"g1","status":"halftime","score":[],"starts":"2025-05-20T18:30:00Z"}"#, "status", nil),
        (#"{"id":"g1","status":"live","score":[],"starts":"2025-05-20T18:30:00Z","venue":{"name":"x","capacity":1e12}}"#, "venue.capacity", nil),
    ] as [(String, String, String?)])
    func shapeErrorsAre422NamingTheField(json: String, field: String, detail: String?) throws {
        let problem = try #require(self.problem(json))
        #expect(problem.status == .unprocessableContent)
        let error = try #require(problem.errors.first)
        #expect(error.path.dotted == field)
        if let detail { #expect(error.detail == detail) }
        #expect(problem.detail?.contains(field) == true)
    }

    @Test(arguments: [
        ("", "empty"),
        ("{\"id\": }", "line 1, column 8"),
        ("{\"id\":\"g1\",}", "column 12"),
        ("{\"id\":\"g1\"} extra", "after the end of the document"),
        ("[1, 2", "end of input"),
        (String(repeating: "[", count: 600), "nests deeper than 512"),
        ("{\"id\":\"\u{01}\"}", "control character"),
    ])
    func syntaxErrorsAre400WithAReason(json: String, expected: String) throws {
        let problem = try #require(self.problem(json))
        #expect(problem.status == .badRequest)
        #expect(problem.detail?.contains(expected) == true, "\(problem.detail ?? "")")
    }

    @Test func contentTypeCheck() throws {
        #expect(throws: Never.self) { try HTTPRequest(method: .post, path: "/", headers: ["Content-Type": "application/problem+json"]).requireJSONContentType() }
        #expect(throws: Never.self) { try HTTPRequest(method: .post, path: "/", headers: ["content-type": "Application/JSON ; charset=utf-8"]).requireJSONContentType() }
        #expect { try HTTPRequest(method: .post, path: "/").requireJSONContentType() } throws: { ($0 as? Problem)?.status == .unsupportedMediaType }
        #expect { try HTTPRequest(method: .post, path: "/", headers: ["Content-Type": "text/json-ish"]).requireJSONContentType() } throws: { ($0 as? Problem)?.status == .unsupportedMediaType }
    }
}
