import ScorecastLogging

/// A complete request as handlers see it: the body is fully received (and within its limit)
/// before a handler runs.
public struct HTTPRequest: Sendable {
    /// The request method.
    public var method: HTTPMethod
    /// The path as sent, still percent-encoded, without the query (`/v1/games/a%2Fb`).
    public var path: String
    /// The decoded query parameters in order; a name may repeat.
    public var queryItems: [QueryItem]
    /// The header fields as received.
    public var headers: HTTPHeaders
    /// The body bytes (empty when there is none).
    public var body: [UInt8]
    /// Values of the route pattern's `{name}` segments, percent-decoded; set by the router.
    public var pathParameters: [String: String]
    /// The client's IP address (`127.0.0.1`, `::1`), when known.
    public var remoteAddress: String?
    /// Identifies the request in logs and problem bodies; echoed in the `X-Request-ID` response
    /// header. Taken from a well-formed incoming `X-Request-ID`, generated otherwise.
    public var requestID: String
    /// A logger carrying the request id as `request_id` metadata.
    public var logger: Logger

    /// Creates a request, e.g. to call a handler or a router without a server.
    public init(
        method: HTTPMethod,
        path: String,
        queryItems: [QueryItem] = [],
        headers: HTTPHeaders = [:],
        body: [UInt8] = [],
        pathParameters: [String: String] = [:],
        remoteAddress: String? = nil,
        requestID: String = RequestID.generate(),
        logger: Logger = Logger(label: "http", level: .critical)
    ) {
        self.method = method
        self.path = path
        self.queryItems = queryItems
        self.headers = headers
        self.body = body
        self.pathParameters = pathParameters
        self.remoteAddress = remoteAddress
        self.requestID = requestID
        self.logger = logger.with(["request_id": requestID])
    }

    /// Creates a request for `target` as a client sends it (`/v1/games/g1?since=3`): the path
    /// kept percent-encoded, the query decoded as the server decodes it; to call a router as
    /// the server would, without one.
    /// - Throws: the server's 400 `Problem` when the query is not valid percent-encoded UTF-8.
    public init(
        method: HTTPMethod, target: String, headers: HTTPHeaders = [:], body: [UInt8] = [], remoteAddress: String? = nil
    ) throws(Problem) {
        let parsed = RequestTarget(target)
        guard let queryItems = RequestTarget.queryItems(of: parsed.query) else { throw RequestTarget.invalidQuery }
        self.init(method: method, path: parsed.path, queryItems: queryItems, headers: headers, body: body, remoteAddress: remoteAddress)
    }

    /// The first value of query parameter `name`, or `nil`.
    public func query(_ name: String) -> String? {
        queryItems.first { $0.name == name }?.value
    }

    /// Every value of query parameter `name`, in order.
    public func queryValues(_ name: String) -> [String] {
        queryItems.filter { $0.name == name }.map(\.value)
    }

    /// Query parameter `name` converted to `T`; `nil` when absent. Throws a 400 `Problem`
    /// naming the parameter when its value does not convert.
    public func query<T: LosslessStringConvertible>(_ name: String, as type: T.Type) throws -> T? {
        guard let raw = query(name) else { return nil }
        guard let value = T(raw) else {
            throw Problem.badRequest(
                "query parameter '\(name)' must be \(Self.typeName(T.self))",
                errors: [.init(path: FieldPath([.key(name)]), detail: "must be \(Self.typeName(T.self))")])
        }
        return value
    }

    /// Path parameter `name` converted to `T`. Throws a 404 `Problem` when it does not convert
    /// (a malformed id names no resource) or is missing.
    public func pathParameter<T: LosslessStringConvertible>(_ name: String, as type: T.Type = String.self) throws -> T {
        guard let raw = pathParameters[name], let value = T(raw) else {
            throw Problem.notFound("path parameter '\(name)' must be \(Self.typeName(T.self))")
        }
        return value
    }

    private static func typeName(_ type: Any.Type) -> String {
        switch type {
        case is Int.Type, is Int64.Type, is Int32.Type: "an integer"
        case is UInt.Type, is UInt64.Type, is UInt32.Type: "a non-negative integer"
        case is Double.Type, is Float.Type: "a number"
        case is Bool.Type: "true or false"
        default: "a valid \(type)"
        }
    }
}
