import Foundation
import HTTPServer
import Testing
import TestSupport

@Suite("Routing over HTTP")
struct RoutingTests {
    @Test func pathParametersAreCapturedAndDecoded() async throws {
        try await withServer(testRouter()) { server in
            let plain = try await server.client.execute(.get, "/v1/games/42/channels")
            #expect(plain.status == 200)
            #expect(plain.header("Content-Type") == "application/json")
            #expect(plain.text == #"{"channel":"ch-42","game":"42"}"#)

            // An encoded slash stays inside its segment.
            let encoded = try await server.client.execute(.get, "/v1/games/a%2Fb%20c/channels")
            #expect((try encoded.json())["game"] as? String == "a/b c")
        }
    }

    @Test func literalSegmentsWinOverParameters() async throws {
        try await withServer(testRouter()) { server in
            let response = try await server.client.execute(.get, "/v1/games/live/channels")
            #expect(response.text == "the live literal route")
        }
    }

    @Test func queryParametersAreDecodedInOrder() async throws {
        try await withServer(testRouter()) { server in
            let response = try await server.client.execute(.get, "/echo?x=1+2&y=%C3%A9t%C3%A9&x=three&token=s3cr3t")
            #expect(response.status == 200)
            #expect((try response.json())["x"] as? String == "1 2|three")
            #expect((try response.json())["y"] as? String == "été")
            #expect((try response.json())["path"] as? String == "/echo")
            #expect((try response.json())["remote"] as? String == "127.0.0.1")
        }
    }

    @Test func headIsServedFromGetWithoutABody() async throws {
        try await withServer(testRouter()) { server in
            let get = try await RawHTTP.exchange(port: server.port, "GET /v1/games/7/channels HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            let head = try await RawHTTP.exchange(port: server.port, "HEAD /v1/games/7/channels HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            #expect(get.status == 200)
            #expect(head.status == 200)
            let getParts = get.headersAndBody
            let headParts = head.headersAndBody
            #expect(getParts.body.count > 0)
            #expect(headParts.headers["content-length"] == String(getParts.body.count))
            #expect(headParts.headers["content-type"] == "application/json")
            #expect(headParts.body.isEmpty)
            #expect(head.closedByServer)
        }
    }

    @Test func requestIDIsEchoedOrGenerated() async throws {
        try await withServer(testRouter()) { server in
            let given = try await server.client.execute(.get, "/echo", headers: ["X-Request-ID": "feed-7.abc_1"])
            #expect(given.header("X-Request-ID") == "feed-7.abc_1")
            #expect((try given.json())["requestID"] as? String == "feed-7.abc_1")

            // Unsafe ids are replaced, never echoed.
            let unsafe = try await server.client.execute(.get, "/echo", headers: ["X-Request-ID": "bad id with spaces"])
            let generated = try #require(unsafe.header("X-Request-ID"))
            #expect(generated != "bad id with spaces")
            #expect(generated.count == 16)
            #expect((try unsafe.json())["requestID"] as? String == generated)
        }
    }

    @Test func middlewareRunsGloballyAndPerRouteInOrder() async throws {
        var router = Router()
        let order = Middleware { request, next in
            var response = try await next(request)
            response.headers.add("X-Trace", "global")
            return response
        }
        let auth = Middleware { request, next in
            guard request.headers["Authorization"] == "Bearer right" else {
                throw Problem(status: .unauthorized, detail: "a valid API key is required", headers: ["WWW-Authenticate": "Bearer"])
            }
            var response = try await next(request)
            response.headers.add("X-Trace", "auth saw \(request.pathParameters["id"] ?? "nothing")")
            return response
        }
        router.use(order)
        router.post("/v1/games/{id}/events", options: .json(), middleware: [auth]) { _ in .empty(status: .accepted) }
        try await withServer(router) { server in
            let denied = try await server.client.execute(.post, "/v1/games/9/events", headers: ["Content-Type": "text/plain"])
            // Authentication is checked before the content type.
            #expect(denied.status == 401)
            #expect(denied.header("WWW-Authenticate") == "Bearer")
            #expect(denied.header("Content-Type") == "application/problem+json")

            let allowed = try await server.client.execute(
                .post, "/v1/games/9/events",
                headers: ["Authorization": "Bearer right", "Content-Type": "application/json"], body: Array("{}".utf8))
            #expect(allowed.status == 202)
            #expect(allowed.header("X-Trace") == "auth saw 9, global")

            // Global middleware also wraps 404s.
            let missing = try await server.client.execute(.get, "/nowhere")
            #expect(missing.status == 404)
        }
    }

    @Test func noContentResponsesCarryNoBody() async throws {
        var router = Router()
        router.delete("/thing") { _ in HTTPResponse(status: .noContent, body: Array("stray".utf8)) }
        try await withServer(router) { server in
            let exchange = try await RawHTTP.exchange(port: server.port, "DELETE /thing HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            #expect(exchange.status == 204)
            #expect(exchange.headersAndBody.body.isEmpty)
            #expect(!exchange.text.contains("stray"))
        }
    }

    @Test func absoluteFormTargetsRouteByTheirPath() async throws {
        try await withServer(testRouter()) { server in
            let exchange = try await RawHTTP.exchange(
                port: server.port, "GET http://example.com/echo?x=abs HTTP/1.1\r\nHost: example.com\r\nConnection: close\r\n\r\n")
            #expect(exchange.status == 200)
            let body = String(decoding: exchange.headersAndBody.body, as: UTF8.self)
            #expect(body.contains(#""path":"/echo""#))
            #expect(body.contains(#""x":"abs""#))
        }
    }
}
