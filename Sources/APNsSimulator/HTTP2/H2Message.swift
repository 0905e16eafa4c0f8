/// One HTTP/2 request as received: pseudo-headers apart, other headers in arrival order
/// (names lower-case, as HTTP/2 requires), and the body.
struct H2Request {
    var method = ""
    var path = ""
    var authority = ""
    /// Header fields in order, credentials redacted (`authorization: bearer <redacted>`).
    var headers: [(name: String, value: String)] = []
    /// The `authorization` value, kept apart from `headers` so it is never logged.
    var authorization: String?
    var body: [UInt8] = []
    /// Body bytes received, counted even past the stored cap, so size limits can be judged.
    var bodyLength = 0

    /// The first value of header `name` (lower-case), if any.
    func header(_ name: String) -> String? {
        for header in headers where header.name == name { return header.value }
        return nil
    }

    /// How many times header `name` appears.
    func count(of name: String) -> Int {
        headers.reduce(0) { $0 + ($1.name == name ? 1 : 0) }
    }
}

/// An HTTP/2 response to send: status, headers (lower-case names) and body.
struct H2Response {
    var status: Int
    var headers: [(name: String, value: String)]
    var body: [UInt8]

    init(status: Int, headers: [(name: String, value: String)] = [], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }
}

/// What to do with a completed request.
enum H2Action {
    /// Answer now.
    case respond(H2Response)
    /// Answer after a delay (added latency).
    case respondLater(H2Response, after: Duration)
    /// Reset the stream with an HTTP/2 error code instead of answering.
    case reset(errorCode: UInt32)
    /// Never answer (a black hole); the stream stays open until the client gives up.
    case ignore
    /// Answer once `held` releases the answer (the `holdAnswers` fault); the stream stays open
    /// meanwhile, and the connection goes on serving its other streams.
    case hold(H2Response, in: HeldAnswers)
}

/// What the server asks of a request handler. Handlers are called on the loop thread of the
/// port that received the request and must not block.
protocol H2Handler: AnyObject, Sendable {
    /// Per-connection state the handler keeps (for example the provider token in use); the
    /// server hands the same object back with every request of that connection.
    func makeConnectionState(connectionID: UInt64) -> AnyObject

    /// Called when the `count`-th stream opens on a connection; `true` sends GOAWAY with this
    /// stream as the last one processed.
    func shouldGoAway(afterStreams count: Int) -> Bool

    /// Decides the answer to a complete request.
    func handle(_ request: consuming H2Request, streamID: Int32, connection: AnyObject) -> H2Action

    /// The SETTINGS_MAX_CONCURRENT_STREAMS to advertise on a connection. Asked when the
    /// connection starts, after each request, and when the server is told the limit changed.
    func streamLimit(for connection: AnyObject) -> UInt32
}
