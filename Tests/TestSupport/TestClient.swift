import CurlHTTP
import Foundation
import HTTPServer

/// The one client tests talk to the HTTP API with, in two modes as Hummingbird's `TestClient`:
///
/// - ``router(_:)``: the request goes to a `Router` in-process, no socket: middleware, gates,
///   handlers, and problems rendered as the server renders them. For handler logic.
/// - ``live(port:host:)`` / ``live(_:)``: the request goes over a real TCP connection to a
///   listening server (an `HTTPServer` in the test, or the built binary) through libcurl, the
///   project's one HTTP client. For what only a server shows: framing, limits, access logs.
///
/// Malformed bytes, lying lengths and held-open sockets are `RawHTTP`'s, not this client's.
public struct TestClient: Sendable {
    private enum Mode: Sendable {
        case router(Router)
        case live(baseURL: String)
    }

    private let mode: Mode

    /// A client answered by `router` in-process.
    public static func router(_ router: Router) -> TestClient {
        TestClient(mode: .router(router))
    }

    /// A client of the server listening on `host`:`port`.
    public static func live(port: Int, host: String = "127.0.0.1") -> TestClient {
        TestClient(mode: .live(baseURL: "http://\(host):\(port)"))
    }

    /// A client of the server at `baseURL` (`http://127.0.0.1:8080`, no trailing slash).
    public static func live(_ baseURL: String) -> TestClient {
        TestClient(mode: .live(baseURL: baseURL))
    }

    /// Sends `method target` (`/v1/games/g1/channels?bundle-id=x`, the query percent-encoded as
    /// a client sends it) and returns the answer, whatever its status. `remoteAddress` is the
    /// client address handlers see in router mode (rate limits, access rules).
    /// - Throws: `TestSupportError` when no answer came (live: refused, timed out, broken).
    @discardableResult
    public func execute(
        _ method: HTTPMethod, _ target: String, headers: HTTPHeaders = [:], body: [UInt8] = [],
        remoteAddress: String = "127.0.0.1"
    ) async throws -> TestResponse {
        switch mode {
        case .router(let router):
            return await Self.respond(router, method, target, headers: headers, body: body, remoteAddress: remoteAddress)
        case .live(let baseURL):
            let request = CurlHTTPRequest(method: method.rawValue, url: baseURL + target,
                                          headers: headers.map { (name: $0.name, value: $0.value) }, body: body)
            do {
                let answer = try await CurlHTTPConnection.perform(request, timeout: hangDeadline)
                return TestResponse(status: answer.status, headers: answer.headers, body: answer.body)
            } catch {
                throw TestSupportError("\(method.rawValue) \(baseURL + target): no answer: \(error)")
            }
        }
    }

    /// `GET target`.
    public func get(_ target: String, headers: HTTPHeaders = [:]) async throws -> TestResponse {
        try await execute(.get, target, headers: headers)
    }

    /// `target` with `query` percent-encoded onto it (`/v1/stats` + `[("window", "1h")]`).
    public static func target(_ path: String, query: [(String, String)]) -> String {
        guard !query.isEmpty else { return path }
        var allowed = CharacterSet.urlQueryAllowed
        allowed.remove(charactersIn: "&=+;")
        let pairs = query.map { name, value in
            (name.addingPercentEncoding(withAllowedCharacters: allowed) ?? name) + "="
                + (value.addingPercentEncoding(withAllowedCharacters: allowed) ?? value)
        }
        return path + "?" + pairs.joined(separator: "&")
    }

    /// What the server would answer, minus transport: the router's response, or its problem
    /// rendered; any other error a bare 500 problem, as the server answers it.
    private static func respond(
        _ router: Router, _ method: HTTPMethod, _ target: String, headers: HTTPHeaders, body: [UInt8],
        remoteAddress: String
    ) async -> TestResponse {
        let response: HTTPResponse
        let request: HTTPRequest
        do {
            request = try HTTPRequest(method: method, target: target, headers: headers, body: body, remoteAddress: remoteAddress)
        } catch {
            return TestResponse(error.response(requestID: nil))
        }
        do {
            response = try await router.respond(to: request)
        } catch let problem as Problem {
            response = problem.response(requestID: request.requestID)
        } catch {
            response = Problem.internalError.response(requestID: request.requestID)
        }
        return TestResponse(response)
    }
}

extension TestResponse {
    /// The router's answer as a client would see it.
    init(_ response: HTTPResponse) {
        var fields: [String: String] = [:]
        for field in response.headers {
            // A repeated field is one list, as a client over the wire sees it (RFC 9110, 5.3).
            fields[field.name.lowercased()] = fields[field.name.lowercased()].map { $0 + ", " + field.value } ?? field.value
        }
        self.init(status: response.status.code, headers: fields, body: response.body)
    }
}

/// An answer as the test client saw it.
public struct TestResponse: Sendable {
    /// The status code.
    public let status: Int
    /// Header fields by lower-cased name (a repeated one's values joined with ", ").
    public let headers: [String: String]
    /// The body bytes.
    public let body: [UInt8]

    /// Creates an answer.
    public init(status: Int, headers: [String: String], body: [UInt8]) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// Header `name`, in any case.
    public func header(_ name: String) -> String? { headers[name.lowercased()] }

    /// The body as UTF-8 text.
    public var text: String { String(decoding: body, as: UTF8.self) }

    /// The body as a JSON object; throws naming what came when it is not one.
    public func json() throws -> [String: Any] { try jsonObject(body) }
}

/// A JSON object from `bytes` (an answer's body, a command's `--json` output), or an error
/// naming what was received.
public func jsonObject(_ bytes: [UInt8]) throws -> [String: Any] {
    guard let object = try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any] else {
        throw TestSupportError("not a JSON object: \(String(decoding: bytes.prefix(500), as: UTF8.self))")
    }
    return object
}
