/// One HTTP request for ``CurlHTTPConnection``.
public struct CurlHTTPRequest: Sendable {
    /// `GET`, `POST`, `PUT`, `DELETE`…
    public var method: String
    /// The whole URL, e.g. `http://127.0.0.1:8080/v1/events`.
    public var url: String
    /// Header lines as (name, value); values may be secret (an API key): they never reach an
    /// error or a log.
    public var headers: [(name: String, value: String)]
    /// The body, sent as is (without a copy) with its `Content-Length`.
    public var body: [UInt8]

    /// Creates a request.
    public init(method: String, url: String, headers: [(name: String, value: String)] = [], body: [UInt8] = []) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
    }
}

/// One complete HTTP response.
public struct CurlHTTPResponse: Sendable {
    /// The status code.
    public var status: Int
    /// Header values by lower-case name (the last one wins when a name repeats).
    public var headers: [String: String]
    /// The body.
    public var body: [UInt8]
    /// New connections the request needed: 0 when it reused the previous request's.
    public var connectionsOpened: Int
}

/// A request that got no HTTP answer. The message comes from libcurl's error buffer, which
/// names hosts and causes, never request headers.
public struct CurlHTTPError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong, e.g. `Failed to connect to 127.0.0.1 port 1: Connection refused`.
    public let description: String
    /// Whether the deadline ended the request.
    public let timedOut: Bool

    /// Creates an error.
    public init(_ description: String, timedOut: Bool = false) {
        self.description = description
        self.timedOut = timedOut
    }
}
