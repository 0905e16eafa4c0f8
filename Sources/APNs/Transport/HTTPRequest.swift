/// The HTTP methods the APNs APIs use.
enum HTTPMethod: String, Sendable {
    case get = "GET"
    case post = "POST"
    case delete = "DELETE"
}

/// One request header. Names are sent lower-case, as HTTP/2 requires.
struct HTTPHeader: Sendable, Hashable {
    var name: String
    var value: String

    init(_ name: String, _ value: String) {
        self.name = name
        self.value = value
    }
}

/// One HTTP/2 request as the transport sends it.
struct HTTPRequest: Sendable {
    var method: HTTPMethod
    var endpoint: APNsEndpoint
    /// The path with its leading slash, already percent-safe (built from validated parts).
    var path: String
    /// The `authorization` value, sent as the first header; kept apart from `headers` so that
    /// signing a request (again, after a token renewal) shares the rest of its headers.
    var authorization: String?
    var headers: [HTTPHeader]
    var body: [UInt8]
    /// Whether sending the request twice is acceptable. Such a request is sent again on a
    /// fresh connection when its connection breaks even if the server may have processed it;
    /// any other request only when the server certainly did not.
    var retrySafe: Bool

    init(method: HTTPMethod, endpoint: APNsEndpoint, path: String, authorization: String? = nil, headers: [HTTPHeader] = [],
         body: [UInt8] = [], retrySafe: Bool = false) {
        self.method = method
        self.endpoint = endpoint
        self.path = path
        self.authorization = authorization
        self.headers = headers
        self.body = body
        self.retrySafe = retrySafe
    }

    /// `https://host:port/path`: where the request goes, as one string.
    var url: String { endpoint.baseURL + path }
}

/// One complete HTTP/2 response.
struct HTTPResponse: Sendable {
    /// The `:status` code.
    var status: Int
    /// The response headers APNs defines; the transport reads no others.
    var headers: APNsResponseHeaders
    var body: [UInt8]
    /// From submitting the request on its stream until the last byte of the answer.
    var latency: Duration
    /// 1 when the request was the first on a newly opened connection, else 0 (reused).
    var connectionsOpened: Int = 0
}
