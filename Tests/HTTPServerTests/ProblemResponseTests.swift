import Foundation
import HTTPServer
import Testing
import TestSupport

@Suite("Problem responses over HTTP")
struct ProblemResponseTests {
    private func expectProblem(_ response: TestResponse, status: Int, sourceLocation: SourceLocation = #_sourceLocation) throws {
        #expect(response.status == status, sourceLocation: sourceLocation)
        #expect(response.header("Content-Type") == "application/problem+json", sourceLocation: sourceLocation)
        #expect((try response.json())["status"] as? Int == status, sourceLocation: sourceLocation)
        #expect((try response.json())["type"] as? String == "about:blank", sourceLocation: sourceLocation)
        #expect(((try response.json())["title"] as? String)?.isEmpty == false, sourceLocation: sourceLocation)
        #expect((try response.json())["requestId"] as? String == response.header("X-Request-ID"), sourceLocation: sourceLocation)
    }

    private func firstError(_ response: TestResponse) throws -> [String: String] {
        (((try response.json())["errors"] as? [[String: Any]])?.first ?? [:]).compactMapValues { $0 as? String }
    }

    @Test func unknownPathIs404() async throws {
        try await withServer(testRouter()) { server in
            let response = try await server.client.execute(.get, "/v2/nothing?secret=1")
            try expectProblem(response, status: 404)
            #expect((try response.json())["title"] as? String == "Not Found")
            #expect(!response.text.contains("secret"))
        }
    }

    @Test func wrongMethodIs405WithAllow() async throws {
        try await withServer(testRouter()) { server in
            let response = try await server.client.execute(.post, "/v1/games/3/channels", body: Array("x".utf8))
            try expectProblem(response, status: 405)
            #expect(response.header("Allow") == "GET, HEAD")

            let delete = try await server.client.execute(.put, "/v1/games/3")
            #expect(delete.status == 405)
            #expect(delete.header("Allow") == "DELETE")
        }
    }

    @Test func unsupportedMethodIs501() async throws {
        try await withServer(testRouter()) { server in
            let exchange = try await RawHTTP.exchange(port: server.port, "BREW /echo HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            #expect(exchange.status == 501)
            #expect(exchange.text.contains("application/problem+json"))
        }
    }

    @Test func declaredOversizedBodyIs413BeforeItIsSent() async throws {
        try await withServer(testRouter(), configure: { $0.maxBodyBytes = 1024 }) { server in
            // Headers only: the server must answer without waiting for the promised 2 MB. Had it
            // waited, the client would time out after a minute with no answer and an open
            // connection: status and closedByServer say which, with no clock read.
            let exchange = try await RawHTTP.exchange(
                port: server.port,
                "POST /small HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nContent-Length: 2000000\r\n\r\n", readTimeout: 60)
            #expect(exchange.status == 413)
            #expect(exchange.closedByServer)
            let body = String(decoding: exchange.headersAndBody.body, as: UTF8.self)
            #expect(body.contains("\"status\":413"))
            #expect(body.contains("1024 bytes"))
        }
    }

    @Test func streamedOversizedBodyIs413() async throws {
        try await withServer(testRouter(), configure: { $0.maxBodyBytes = 1024 }) { server in
            // Chunked: no length up front, so the server has to count.
            let chunk = String(repeating: "a", count: 700)
            let hex = String(chunk.utf8.count, radix: 16)
            let request = "POST /small HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
                + "\(hex)\r\n\(chunk)\r\n\(hex)\r\n\(chunk)\r\n0\r\n\r\n"
            let exchange = try await RawHTTP.exchange(port: server.port, request)
            #expect(exchange.status == 413)

            // Just under the limit passes.
            let small = "POST /small HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
                + "\(hex)\r\n\(chunk)\r\n0\r\n\r\n"
            let ok = try await RawHTTP.exchange(port: server.port, small)
            #expect(ok.status == 200)
            #expect(String(decoding: ok.headersAndBody.body, as: UTF8.self) == "700")
        }
    }

    @Test func routeLimitOverridesServerLimit() async throws {
        try await withServer(testRouter(), configure: { $0.maxBodyBytes = 1024 }) { server in
            let big = [UInt8](repeating: 0x61, count: 3 << 20)
            let upload = try await server.client.execute(.post, "/upload", headers: ["Content-Type": "application/octet-stream"], body: big)
            #expect(upload.status == 200)
            #expect(upload.text == String(3 << 20))

            let tooBig = try await server.client.execute(.post, "/small", headers: ["Content-Type": "application/octet-stream"], body: [UInt8](repeating: 0x61, count: 2048))
            #expect(tooBig.status == 413)
        }
    }

    @Test func jsonRouteRejectsOtherContentTypesWith415() async throws {
        try await withServer(testRouter()) { server in
            let response = try await server.client.execute(.post, "/v1/events", headers: ["Content-Type": "text/plain"], body: Array("{}".utf8))
            try expectProblem(response, status: 415)
            #expect(((try response.json())["detail"] as? String)?.contains("application/json") == true)

            let withCharset = try await server.client.execute(
                .post, "/v1/events",
                headers: ["Content-Type": "application/json; charset=utf-8"], body: Array(#"{"events":[]}"#.utf8))
            #expect(withCharset.status == 202)
        }
    }

    @Test func malformedJSONIs400WithLocation() async throws {
        try await withServer(testRouter()) { server in
            let response = try await server.client.execute(
                .post, "/v1/events", headers: ["Content-Type": "application/json"],
                body: Array("{\"events\": [\n  {\"seq\": 1,, \"kind\": \"goal\"}]}".utf8))
            try expectProblem(response, status: 400)
            let detail = try #require((try response.json())["detail"] as? String)
            #expect(detail == "the request body is not valid JSON: invalid JSON at byte 25: expected a string key in object")
        }
    }

    @Test func duplicateKeysAre400() async throws {
        try await withServer(testRouter()) { server in
            let response = try await server.client.execute(
                .post, "/v1/events", headers: ["Content-Type": "application/json"],
                body: Array(#"{"events":[],"events":[{"seq":1}]}"#.utf8))
            try expectProblem(response, status: 400)
            #expect(((try response.json())["detail"] as? String)?.contains(#"duplicate object key "events""#) == true)
        }
    }

    @Test func aRouteNamesTheFieldItRefusesWith422() async throws {
        try await withServer(testRouter()) { server in
            let response = try await server.client.execute(
                .post, "/v1/events", headers: ["Content-Type": "application/json"],
                body: Array(#"{"events":{"seq":1}}"#.utf8))
            try expectProblem(response, status: 422)
            #expect(try firstError(response)["field"] == "events")
            #expect(try firstError(response)["pointer"] == "/events")
            #expect(try firstError(response)["detail"] == "must be an array")
        }
    }

    @Test func handlerProblemsKeepTheirStatusAndFields() async throws {
        try await withServer(testRouter()) { server in
            let response = try await server.client.execute(.get, "/problem")
            try expectProblem(response, status: 409)
            #expect((try response.json())["detail"] as? String == "already exists")
            #expect(try firstError(response)["field"] == "game.id")
            #expect(try firstError(response)["pointer"] == "/game/id")
        }
    }

    @Test func otherErrorsAre500WithoutInternals() async throws {
        try await withServer(testRouter()) { server in
            let response = try await server.client.execute(.get, "/boom")
            try expectProblem(response, status: 500)
            #expect(!response.text.contains("hunter2"))
            #expect(!response.text.contains("/srv"))
            #expect(!response.text.contains("LeakyError"))
            let requestID = try #require(response.header("X-Request-ID"))
            let errorLines = server.sink.lines.filter { $0.contains(" ERROR ") }
            #expect(errorLines.count == 1)
            #expect(errorLines.first?.contains("request_id=\(requestID)") == true)
        }
    }

    @Test func invalidPercentEncodingIs400() async throws {
        try await withServer(testRouter()) { server in
            let path = try await RawHTTP.exchange(port: server.port, "GET /v1/games/%FF/channels HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            #expect(path.status == 400)
            let query = try await RawHTTP.exchange(port: server.port, "GET /echo?x=%zz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            #expect(query.status == 400)
            #expect(query.text.contains("query string"))
        }
    }
}
