import Foundation
import HTTPServer
import Testing

@Suite("Router without a server")
struct RouterTests {
    private func router() -> Router {
        var router = Router()
        router.get("/v1/games/{id}") { request in .text("game \(request.pathParameters["id"] ?? "")") }
        router.get("/v1/games/{id}/channels") { request in .text("channels \(request.pathParameters["id"] ?? "")") }
        router.post("/v1/games/{id}/channels") { _ in .empty(status: .created) }
        router.get("/v1/games/live") { _ in .text("live") }
        router.get("/v1/stats") { _ in .text("stats") }
        return router
    }

    private func status(of error: any Error) -> Int? { (error as? Problem)?.status.code }

    @Test func matchesPatternsAndCapturesParameters() async throws {
        let router = router()
        #expect(try await router.respond(to: HTTPRequest(method: .get, path: "/v1/games/12")).body == Array("game 12".utf8))
        #expect(try await router.respond(to: HTTPRequest(method: .get, path: "/v1/games/12/channels")).body == Array("channels 12".utf8))
        #expect(try await router.respond(to: HTTPRequest(method: .post, path: "/v1/games/12/channels")).status == .created)
        #expect(try await router.respond(to: HTTPRequest(method: .get, path: "/v1/games/live")).body == Array("live".utf8))
        // Trailing and doubled slashes do not matter.
        #expect(try await router.respond(to: HTTPRequest(method: .get, path: "/v1//stats/")).body == Array("stats".utf8))
    }

    @Test func unknownPathsAre404AndWrongMethods405() async throws {
        let router = router()
        await #expect { try await router.respond(to: HTTPRequest(method: .get, path: "/v1/nothing")) } throws: { status(of: $0) == 404 }
        await #expect {
            try await router.respond(to: HTTPRequest(method: .delete, path: "/v1/games/1/channels"))
        } throws: { error in
            guard let problem = error as? Problem else { return false }
            return problem.status == .methodNotAllowed && problem.headers["Allow"] == "GET, HEAD, POST"
        }
    }

    @Test func headFallsBackToGetUnlessAHeadRouteExists() async throws {
        var router = router()
        #expect(try await router.respond(to: HTTPRequest(method: .head, path: "/v1/stats")).body == Array("stats".utf8))
        router.add(.head, "/v1/stats") { _ in .empty(status: .ok, headers: ["X-Head": "own"]) }
        #expect(try await router.respond(to: HTTPRequest(method: .head, path: "/v1/stats")).headers["X-Head"] == "own")
    }

    @Test func reRegisteringReplacesTheRoute() async throws {
        var router = router()
        router.get("/v1/games/{gameID}") { _ in .text("replaced") }
        #expect(try await router.respond(to: HTTPRequest(method: .get, path: "/v1/games/5")).body == Array("replaced".utf8))
    }

    @Test func typedParametersThrowProblems() async throws {
        var router = Router()
        router.get("/n/{id}") { request in
            let id = try request.pathParameter("id", as: Int.self)
            let limit = try request.query("limit", as: Int.self) ?? 10
            return .text("\(id) \(limit)")
        }
        #expect(try await router.respond(to: HTTPRequest(method: .get, path: "/n/5", queryItems: [QueryItem(name: "limit", value: "3")])).body == Array("5 3".utf8))
        await #expect { try await router.respond(to: HTTPRequest(method: .get, path: "/n/x")) } throws: { status(of: $0) == 404 }
        await #expect {
            try await router.respond(to: HTTPRequest(method: .get, path: "/n/5", queryItems: [QueryItem(name: "limit", value: "many")]))
        } throws: { error in
            (error as? Problem)?.status == .badRequest && (error as? Problem)?.errors.first?.path.dotted == "limit"
        }
    }

    @Test func middlewareComposesOutsideIn() async throws {
        let trace = { (tag: String) in
            Middleware { request, next in
                var response = try await next(request)
                response.headers.add("X-Order", tag)
                return response
            }
        }
        var router = Router()
        router.use(trace("outer").followed(by: trace("inner")))
        router.get("/", middleware: [trace("route-1"), trace("route-2")]) { _ in .text("ok") }
        let response = try await router.respond(to: HTTPRequest(method: .get, path: "/"))
        // Innermost adds first on the way out.
        #expect(response.headers.values(for: "x-order") == ["route-2", "route-1", "inner", "outer"])
    }
}

@Suite("Messages")
struct MessageTests {
    @Test func headersAreCaseInsensitiveOrderedAndMultiValued() {
        var headers: HTTPHeaders = ["Content-Type": "text/plain", "Vary": "Accept"]
        headers.add("vary", "Origin")
        #expect(headers["content-type"] == "text/plain")
        #expect(headers.values(for: "VARY") == ["Accept", "Origin"])
        headers["VARY"] = "*"
        #expect(headers.values(for: "vary") == ["*"])
        #expect(headers.map(\.name) == ["Content-Type", "Vary"])
        headers["content-type"] = nil
        #expect(!headers.contains("Content-Type"))
        #expect(HTTPHeaders([(name: "A", value: "1")]) == ["a": "1"])
    }

    @Test func fieldPathsRenderAsDottedAndPointer() {
        let path: FieldPath = "events[2].seq"
        #expect(path.components == [.key("events"), .index(2), .key("seq")])
        #expect(path.dotted == "events[2].seq")
        #expect(path.jsonPointer == "/events/2/seq")
        #expect(FieldPath([.key("a/b"), .key("c~d")]).jsonPointer == "/a~1b/c~0d")
        #expect(FieldPath("").components.isEmpty)
    }

    @Test func problemBodiesFollowRFC9457() {
        let problem = Problem(status: .unprocessableContent, detail: "bad \"seq\"", errors: [.init(field: "events[0].seq", detail: "must be positive")])
        let response = problem.response(requestID: "abc")
        #expect(response.status.code == 422)
        #expect(response.headers["Content-Type"] == "application/problem+json")
        #expect(String(decoding: response.body, as: UTF8.self)
            == #"{"type":"about:blank","title":"Unprocessable Content","status":422,"detail":"bad \"seq\"","errors":[{"pointer":"/events/0/seq","field":"events[0].seq","detail":"must be positive"}],"requestId":"abc"}"#)
    }

    @Test func jsonResponsesAreStable() throws {
        struct Payload: Encodable {
            let zeta = 1
            let alpha = "a/b"
            let at = Date(timeIntervalSince1970: 1_747_000_000)
        }
        let response = try HTTPResponse.json(Payload(), status: .created)
        #expect(response.status == .created)
        #expect(String(decoding: response.body, as: UTF8.self) == #"{"alpha":"a/b","at":"2025-05-11T21:46:40Z","zeta":1}"#)
        #expect(HTTPResponse.html("<p>").headers["Content-Type"] == "text/html; charset=utf-8")
        #expect(HTTPResponse.empty().status.code == 204)
        let teapot: HTTPStatus = 418
        #expect(teapot.description == "418 Status 418")
        #expect(HTTPStatus(code: 42) == .internalServerError)
    }
}
