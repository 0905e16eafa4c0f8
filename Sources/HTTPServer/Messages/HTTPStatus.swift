/// An HTTP status code with its reason phrase.
///
/// Any code in 100...599 can be expressed (`HTTPStatus(code: 418)`); the common ones have names.
public struct HTTPStatus: Sendable, Hashable, CustomStringConvertible, ExpressibleByIntegerLiteral {
    /// The numeric code, e.g. `404`.
    public let code: Int

    /// Creates a status from its code. Codes outside 100...599 are clamped to 500 so that a
    /// programming slip can never put an invalid status line on the wire.
    public init(code: Int) {
        self.code = (100...599).contains(code) ? code : 500
    }

    /// A status from a literal code, e.g. `let status: HTTPStatus = 418`.
    public init(integerLiteral code: Int) {
        self.init(code: code)
    }

    /// The standard reason phrase (`Not Found`), or `Status <code>` for unnamed codes.
    public var reasonPhrase: String {
        Self.phrases[code] ?? "Status \(code)"
    }

    /// `404 Not Found`.
    public var description: String { "\(code) \(reasonPhrase)" }

    /// Whether the code is 200...299.
    public var isSuccess: Bool { (200...299).contains(code) }

    /// 200 OK.
    public static let ok = HTTPStatus(code: 200)
    /// 201 Created.
    public static let created = HTTPStatus(code: 201)
    /// 202 Accepted.
    public static let accepted = HTTPStatus(code: 202)
    /// 204 No Content.
    public static let noContent = HTTPStatus(code: 204)
    /// 301 Moved Permanently.
    public static let movedPermanently = HTTPStatus(code: 301)
    /// 303 See Other (after a form post).
    public static let seeOther = HTTPStatus(code: 303)
    /// 304 Not Modified.
    public static let notModified = HTTPStatus(code: 304)
    /// 400 Bad Request.
    public static let badRequest = HTTPStatus(code: 400)
    /// 401 Unauthorized.
    public static let unauthorized = HTTPStatus(code: 401)
    /// 403 Forbidden.
    public static let forbidden = HTTPStatus(code: 403)
    /// 404 Not Found.
    public static let notFound = HTTPStatus(code: 404)
    /// 405 Method Not Allowed.
    public static let methodNotAllowed = HTTPStatus(code: 405)
    /// 408 Request Timeout (a body that arrived too slowly).
    public static let requestTimeout = HTTPStatus(code: 408)
    /// 409 Conflict.
    public static let conflict = HTTPStatus(code: 409)
    /// 413 Content Too Large.
    public static let contentTooLarge = HTTPStatus(code: 413)
    /// 431 Request Header Fields Too Large.
    public static let requestHeaderFieldsTooLarge = HTTPStatus(code: 431)
    /// 415 Unsupported Media Type.
    public static let unsupportedMediaType = HTTPStatus(code: 415)
    /// 422 Unprocessable Content.
    public static let unprocessableContent = HTTPStatus(code: 422)
    /// 429 Too Many Requests.
    public static let tooManyRequests = HTTPStatus(code: 429)
    /// 500 Internal Server Error.
    public static let internalServerError = HTTPStatus(code: 500)
    /// 501 Not Implemented.
    public static let notImplemented = HTTPStatus(code: 501)
    /// 503 Service Unavailable.
    public static let serviceUnavailable = HTTPStatus(code: 503)

    private static let phrases: [Int: String] = [
        100: "Continue", 101: "Switching Protocols",
        200: "OK", 201: "Created", 202: "Accepted", 203: "Non-Authoritative Information",
        204: "No Content", 205: "Reset Content", 206: "Partial Content",
        300: "Multiple Choices", 301: "Moved Permanently", 302: "Found", 303: "See Other",
        304: "Not Modified", 307: "Temporary Redirect", 308: "Permanent Redirect",
        400: "Bad Request", 401: "Unauthorized", 402: "Payment Required", 403: "Forbidden",
        404: "Not Found", 405: "Method Not Allowed", 406: "Not Acceptable",
        407: "Proxy Authentication Required", 408: "Request Timeout", 409: "Conflict", 410: "Gone",
        411: "Length Required", 412: "Precondition Failed", 413: "Content Too Large",
        414: "URI Too Long", 415: "Unsupported Media Type", 416: "Range Not Satisfiable",
        417: "Expectation Failed", 421: "Misdirected Request", 422: "Unprocessable Content",
        425: "Too Early", 426: "Upgrade Required", 428: "Precondition Required",
        429: "Too Many Requests", 431: "Request Header Fields Too Large",
        451: "Unavailable For Legal Reasons",
        500: "Internal Server Error", 501: "Not Implemented", 502: "Bad Gateway",
        503: "Service Unavailable", 504: "Gateway Timeout", 505: "HTTP Version Not Supported",
    ]
}
