/// One request on one HTTP/2 stream: the body being sent and the response being received.
/// Confined to the loop thread; owned by its connection's stream table until the stream
/// closes (nghttp2 holds an unretained pointer to it as the body source).
final class H2ClientStream {
    /// The request; `nil` once it was answered, failed, timed out or cancelled (the stream
    /// may still be closing in nghttp2, which only needs the accounting then).
    var transfer: Transfer?
    var streamID: Int32 = 0
    /// When the stream was submitted (the loop's clock of that turn).
    var startedAt: ContinuousClock.Instant
    /// Whether this request was the first on a newly opened connection.
    var openedConnection: Bool
    /// The request body (shared with the transfer's request, not copied) and how much of it
    /// went out.
    let requestBody: [UInt8]
    var bodyOffset = 0

    var status = 0
    var headers: [String: String] = [:]
    var body: [UInt8] = []
    /// END_STREAM arrived from the server: the response is complete.
    var complete = false
    /// The body passed the cap; the stream was cancelled.
    var tooLarge = false

    init(transfer: Transfer, startedAt: ContinuousClock.Instant, openedConnection: Bool) {
        self.transfer = transfer
        self.requestBody = transfer.request.body
        self.startedAt = startedAt
        self.openedConnection = openedConnection
    }

    /// The finished response.
    func response(now: ContinuousClock.Instant) -> HTTPResponse {
        HTTPResponse(status: status, headers: headers, body: body, latency: now - startedAt,
                     connectionsOpened: openedConnection ? 1 : 0)
    }
}
