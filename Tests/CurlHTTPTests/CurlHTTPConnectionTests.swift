import CurlHTTP
import Foundation
import HTTPServer
import Lifecycle
import ScorecastLogging
import Testing

/// The project's HTTP client against the project's HTTP server (libmicrohttpd) on loopback.
@Suite("CurlHTTPConnection")
struct CurlHTTPConnectionTests {
    /// Echoes method, path, the headers a test sets, and the body length; `/slow` waits.
    private static func router() -> Router {
        var router = Router()
        let echo: Handler = { request in
            try .json([
                "method": request.method.rawValue, "path": request.path,
                "authorization": request.headers["authorization"] ?? "",
                "type": request.headers["content-type"] ?? "",
                "length": String(request.body.count),
                "body": String(decoding: request.body.prefix(64), as: UTF8.self),
            ], headers: ["x-answer": "echo"])
        }
        router.get("/echo", handler: echo)
        router.post("/echo", options: RouteOptions(maxBodyBytes: 4 << 20), handler: echo)
        router.delete("/echo", handler: echo)
        router.get("/slow") { _ in
            try await Task.sleep(for: .seconds(5))
            return .text("late")
        }
        router.get("/big") { _ in .text(String(repeating: "x", count: 10_000)) }
        router.get("/twice") { _ in
            var response = HTTPResponse.text("two fields")
            response.headers.add("X-Trace", "first")
            response.headers.add("X-Trace", "second")
            return response
        }
        return router
    }

    private static func withServer(_ body: (Int) async throws -> Void) async throws {
        let server = HTTPServer(configuration: HTTPServerConfiguration(host: "127.0.0.1", port: 0, threadCount: 2),
                                router: router(), logger: Logger(label: "http", level: .error))
        try server.start()
        let shutdown = ShutdownSignal()
        let task = Task { try await server.run(until: shutdown) }
        do {
            try await body(server.port)
        } catch {
            shutdown.trigger()
            try? await task.value
            throw error
        }
        shutdown.trigger()
        try await task.value
    }

    private static func json(_ response: CurlHTTPResponse) throws -> [String: String] {
        try #require(try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: String])
    }

    @Test("GET, POST and DELETE arrive with their headers and body; one kept-alive connection carries them all")
    func methodsOnOneConnection() throws {
        let port = try Self.startBlocking()
        defer { port.stop() }
        let connection = try CurlHTTPConnection(timeout: .seconds(10))
        let url = "http://127.0.0.1:\(port.number)/echo"
        let get = try connection.perform(CurlHTTPRequest(method: "GET", url: url, headers: [("Authorization", "Bearer k1")]))
        #expect(get.status == 200)
        #expect(get.connectionsOpened == 1)
        #expect(get.headers["x-answer"] == "echo")
        #expect(try Self.json(get) == ["method": "GET", "path": "/echo", "authorization": "Bearer k1", "type": "", "length": "0", "body": ""])
        let post = try connection.perform(CurlHTTPRequest(method: "POST", url: url, headers: [("Content-Type", "application/json")],
                                                          body: Array(#"{"a":1}"#.utf8)))
        #expect(post.connectionsOpened == 0)
        #expect(try Self.json(post) == ["method": "POST", "path": "/echo", "authorization": "", "type": "application/json", "length": "7", "body": #"{"a":1}"#])
        let emptyPost = try connection.perform(CurlHTTPRequest(method: "POST", url: url))
        #expect(try Self.json(emptyPost)["length"] == "0")
        let delete = try connection.perform(CurlHTTPRequest(method: "DELETE", url: url))
        #expect(try Self.json(delete)["method"] == "DELETE")
        #expect(delete.connectionsOpened == 0)
        let large = (0..<2_000_000).map { UInt8(ascii: "a") + UInt8($0 % 26) }
        let big = try connection.perform(CurlHTTPRequest(method: "POST", url: url, body: large))
        #expect(try Self.json(big)["length"] == "2000000")
    }

    @Test("the async form answers from a thread of its own")
    func asyncPerform() async throws {
        try await Self.withServer { port in
            let answer = try await CurlHTTPConnection.perform(CurlHTTPRequest(method: "GET", url: "http://127.0.0.1:\(port)/echo"))
            #expect(answer.status == 200)
            #expect(try Self.json(answer)["path"] == "/echo")
        }
    }

    @Test("a repeated header field is one value, joined in order")
    func repeatedField() async throws {
        try await Self.withServer { port in
            let answer = try await CurlHTTPConnection.perform(CurlHTTPRequest(method: "GET", url: "http://127.0.0.1:\(port)/twice"))
            #expect(answer.headers["x-trace"] == "first, second")
        }
    }

    @Test("nothing listening: an error naming the address, never a header value")
    func refused() async throws {
        let error = await #expect(throws: CurlHTTPError.self) {
            _ = try await CurlHTTPConnection.perform(
                CurlHTTPRequest(method: "POST", url: "http://127.0.0.1:1/v1/events", headers: [("Authorization", "Bearer sck_secret_key")]),
                timeout: .seconds(5))
        }
        #expect(error?.timedOut == false)
        #expect(error?.description.contains("127.0.0.1") == true, "\(error?.description ?? "")")
        #expect(error?.description.contains("sck_secret_key") == false)
    }

    @Test("an answer later than the deadline: timedOut")
    func deadline() async throws {
        try await Self.withServer { port in
            let error = await #expect(throws: CurlHTTPError.self) {
                _ = try await CurlHTTPConnection.perform(CurlHTTPRequest(method: "GET", url: "http://127.0.0.1:\(port)/slow"),
                                                         timeout: .milliseconds(300))
            }
            #expect(error?.timedOut == true)
        }
    }

    @Test("an answer larger than the cap is refused")
    func tooLarge() throws {
        let port = try Self.startBlocking()
        defer { port.stop() }
        let connection = try CurlHTTPConnection(timeout: .seconds(10), maxResponseBytes: 1000)
        let error = #expect(throws: CurlHTTPError.self) {
            _ = try connection.perform(CurlHTTPRequest(method: "GET", url: "http://127.0.0.1:\(port.number)/big"))
        }
        #expect(error?.description.contains("more than 1000 bytes") == true)
    }

    /// A server for the blocking tests (the server runs on its own threads).
    private final class BlockingServer: @unchecked Sendable {
        // @unchecked: set once in startBlocking; stop() is called once.
        let number: Int
        let shutdown = ShutdownSignal()
        let task: Task<Void, any Error>

        init(_ server: HTTPServer) {
            number = server.port
            let shutdown = self.shutdown
            task = Task { try await server.run(until: shutdown) }
        }

        func stop() { shutdown.trigger() }
    }

    private static func startBlocking() throws -> BlockingServer {
        let server = HTTPServer(configuration: HTTPServerConfiguration(host: "127.0.0.1", port: 0, threadCount: 2),
                                router: router(), logger: Logger(label: "http", level: .error))
        try server.start()
        return BlockingServer(server)
    }
}
