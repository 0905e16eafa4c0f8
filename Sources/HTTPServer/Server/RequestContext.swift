/// One request's transport state, from its request line to its completion.
///
/// Owned by libmicrohttpd's `*con_cls`: retained in the URI callback, released in the completed
/// callback. Not `Sendable` and needs no lock: libmicrohttpd calls every callback of a connection
/// on that connection's thread, one at a time. What the handler task shares lives in
/// `PendingReply`.
final class RequestContext {
    enum Phase {
        /// Headers parsed, access handler not yet called.
        case new
        /// The route's gate (or the router, for a request matching no route) is looking at the
        /// headers; the connection is suspended until it answers, and no body byte is read.
        case screening(PendingReply)
        /// Accepted; body chunks arriving.
        case receiving
        /// Handed to a Swift task; the connection is suspended until the reply is ready.
        case dispatched(PendingReply)
        /// A response is queued.
        case responded
    }

    /// The request target as sent, split into path and query.
    let target: RequestTarget
    /// When the request line arrived.
    let started: ContinuousClock.Instant
    var phase: Phase = .new
    /// The method as sent (for the access log, even when unsupported).
    var methodText = "-"
    var method: HTTPMethod?
    var headers = HTTPHeaders()
    /// Whether the headers announce a body (a non-zero `Content-Length`, or chunked).
    var hasBody = false
    var body: [UInt8] = []
    /// The body limit in force for this request's route.
    var bodyLimit = 0
    /// Bytes beyond `bodyLimit` read and thrown away so that a `413` can still be sent.
    var discardedBytes = 0
    /// Answered before its body was read: once the answer is out, the connection is handed to
    /// the guard, which reads and drops the rest so that the client sees the answer instead of
    /// a reset (a lingering close).
    var lingerAfterResponse = false
    var requestID = ""
    var remoteAddress: String?
    /// The status and body size sent, for the access log.
    var status: Int?
    var responseBytes = 0

    init(target: RequestTarget, started: ContinuousClock.Instant) {
        self.target = target
        self.started = started
    }
}
