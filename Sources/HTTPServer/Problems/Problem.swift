import JSON

/// An error that chooses its own HTTP response: an RFC 9457 problem detail
/// (`application/problem+json`).
///
/// Handlers and middleware throw it to answer with a 4xx or 5xx:
/// ```swift
/// throw Problem(status: .unprocessableContent, detail: "seq must be positive",
///               errors: [.init(field: "events[2].seq", detail: "must be positive")])
/// ```
/// The body carries `type`, `title`, `status`, `detail` (when set), `instance` (when set), an
/// `errors` array naming each field at fault (when any), and the `requestId` of the request.
/// Any other error thrown by a handler becomes a `500` problem that reveals nothing internal.
public struct Problem: Error, Sendable, Hashable, CustomStringConvertible {
    /// One field at fault.
    public struct FieldError: Sendable, Hashable {
        /// Where the bad value is.
        public var path: FieldPath
        /// What is wrong with it, for a person.
        public var detail: String

        /// Creates a field error at `path`.
        public init(path: FieldPath, detail: String) {
            self.path = path
            self.detail = detail
        }

        /// Creates a field error from a dotted path such as `events[2].seq`.
        public init(field: String, detail: String) {
            self.init(path: FieldPath(field), detail: detail)
        }
    }

    /// A URI reference identifying the problem type; `about:blank` when the status says it all.
    public var type: String
    /// A short summary of the problem type; by default the status' reason phrase.
    public var title: String
    /// The HTTP status of the response.
    public var status: HTTPStatus
    /// An explanation of this occurrence, for the client. Never put secrets or internals here.
    public var detail: String?
    /// A URI reference identifying this occurrence, if any.
    public var instance: String?
    /// The fields at fault, if the problem is about the request's content.
    public var errors: [FieldError]
    /// Extra response headers, e.g. `Allow` for 405, `Retry-After` for 429/503,
    /// `WWW-Authenticate` for 401.
    public var headers: HTTPHeaders

    /// Creates a problem. `title` defaults to the status' reason phrase.
    public init(
        status: HTTPStatus,
        title: String? = nil,
        detail: String? = nil,
        type: String = "about:blank",
        instance: String? = nil,
        errors: [FieldError] = [],
        headers: HTTPHeaders = [:]
    ) {
        self.type = type
        self.title = title ?? status.reasonPhrase
        self.status = status
        self.detail = detail
        self.instance = instance
        self.errors = errors
        self.headers = headers
    }

    /// `Problem 422 Unprocessable Content: detail`.
    public var description: String {
        "Problem \(status)" + (detail.map { ": \($0)" } ?? "")
    }

    /// 400: the request is malformed.
    public static func badRequest(_ detail: String, errors: [FieldError] = []) -> Problem {
        Problem(status: .badRequest, detail: detail, errors: errors)
    }

    /// 404: nothing here.
    public static func notFound(_ detail: String? = nil) -> Problem {
        Problem(status: .notFound, detail: detail)
    }

    /// 405 with the `Allow` header listing `allowed`.
    public static func methodNotAllowed(_ method: String, allowed: [HTTPMethod]) -> Problem {
        let list = allowed.map(\.rawValue).joined(separator: ", ")
        return Problem(
            status: .methodNotAllowed,
            detail: "\(method) is not allowed here; allowed: \(list)",
            headers: ["Allow": list])
    }

    /// 413: the body is larger than `limit` bytes.
    public static func contentTooLarge(limit: Int) -> Problem {
        Problem(status: .contentTooLarge, detail: "the request body exceeds the limit of \(limit) bytes")
    }

    /// 431: the request's header fields together are larger than `limit` bytes.
    public static func headersTooLarge(limit: Int) -> Problem {
        Problem(status: .requestHeaderFieldsTooLarge, detail: "the request's header fields exceed the limit of \(limit) bytes")
    }

    /// 415: the body's media type is not the one expected.
    public static func unsupportedMediaType(expected: String, got: String?) -> Problem {
        Problem(
            status: .unsupportedMediaType,
            detail: "expected Content-Type \(expected), got \(got.map { "'\($0)'" } ?? "none")")
    }

    /// 422: the body is well-formed but its content is wrong; `errors` name the fields.
    public static func unprocessable(_ detail: String, errors: [FieldError] = []) -> Problem {
        Problem(status: .unprocessableContent, detail: detail, errors: errors)
    }

    /// 500 that says nothing about the cause; the request id lets an operator find the log line.
    public static var internalError: Problem {
        Problem(status: .internalServerError, detail: "the server failed to handle the request; quote the request id when reporting it")
    }

    /// 503: the server cannot answer now (e.g. shutting down).
    public static func serviceUnavailable(_ detail: String) -> Problem {
        Problem(status: .serviceUnavailable, detail: detail)
    }

    /// The problem as a response (`application/problem+json`), carrying `requestID` in the
    /// body as `requestId`.
    public func response(requestID: String?) -> HTTPResponse {
        var headers = self.headers
        headers.replaceOrAdd("Content-Type", "application/problem+json")
        return HTTPResponse(status: status, headers: headers, body: Array(json(requestID: requestID).utf8))
    }

    /// The JSON body, members in RFC 9457 order.
    func json(requestID: String?) -> String {
        var members: [(String, String)] = [
            ("type", JSONValue.quoted(type)),
            ("title", JSONValue.quoted(title)),
            ("status", String(status.code)),
        ]
        if let detail { members.append(("detail", JSONValue.quoted(detail))) }
        if let instance { members.append(("instance", JSONValue.quoted(instance))) }
        if !errors.isEmpty {
            let list = errors.map { error in
                "{\"pointer\":\(JSONValue.quoted(error.path.jsonPointer)),\"field\":\(JSONValue.quoted(error.path.dotted)),\"detail\":\(JSONValue.quoted(error.detail))}"
            }
            members.append(("errors", "[" + list.joined(separator: ",") + "]"))
        }
        if let requestID { members.append(("requestId", JSONValue.quoted(requestID))) }
        return "{" + members.map { "\(JSONValue.quoted($0.0)):\($0.1)" }.joined(separator: ",") + "}"
    }
}
