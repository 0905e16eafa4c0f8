import Foundation
import JSON

/// What a handler answers: a status, header fields and a body.
///
/// The server adds `Content-Length`, `Date` and `X-Request-ID`; for `HEAD` requests it sends the
/// headers of the `GET` answer without its body.
public struct HTTPResponse: Sendable {
    /// The status line's code.
    public var status: HTTPStatus
    /// Header fields to send (do not set `Content-Length`: the server computes it).
    public var headers: HTTPHeaders
    /// The body bytes.
    public var body: [UInt8]

    /// Creates a response.
    public init(status: HTTPStatus = .ok, headers: HTTPHeaders = [:], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A JSON response (`application/json`): object keys sorted so output is stable, dates as
    /// ISO 8601 strings (`2025-05-20T12:00:00Z`), slashes not escaped. Throws if `value` cannot
    /// be encoded (e.g. a non-finite `Double`), which the server answers with a 500.
    public static func json<Value: Encodable>(
        _ value: Value, status: HTTPStatus = .ok, headers: HTTPHeaders = [:]
    ) throws -> HTTPResponse {
        let body = try JSONCoding.encode(value)
        var headers = headers
        headers.replaceOrAdd("Content-Type", "application/json")
        return HTTPResponse(status: status, headers: headers, body: body)
    }

    /// A plain-text response (`text/plain; charset=utf-8`).
    public static func text(_ text: String, status: HTTPStatus = .ok, headers: HTTPHeaders = [:]) -> HTTPResponse {
        var headers = headers
        headers.replaceOrAdd("Content-Type", "text/plain; charset=utf-8")
        return HTTPResponse(status: status, headers: headers, body: Array(text.utf8))
    }

    /// An HTML response (`text/html; charset=utf-8`).
    public static func html(_ html: String, status: HTTPStatus = .ok, headers: HTTPHeaders = [:]) -> HTTPResponse {
        var headers = headers
        headers.replaceOrAdd("Content-Type", "text/html; charset=utf-8")
        return HTTPResponse(status: status, headers: headers, body: Array(html.utf8))
    }

    /// A response without a body, `204 No Content` by default.
    public static func empty(status: HTTPStatus = .noContent, headers: HTTPHeaders = [:]) -> HTTPResponse {
        HTTPResponse(status: status, headers: headers)
    }
}
