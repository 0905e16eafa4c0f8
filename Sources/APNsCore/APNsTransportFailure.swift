/// A send that ended without an HTTP response from APNs.
///
/// Every one of these is retried with backoff (apns.md §8, last row): a request that timed out
/// may or may not have been processed, which is fine because delivery is at least once and the
/// device drops exact repeats by `timestamp`.
public enum APNsTransportFailure: Sendable, Hashable, CustomStringConvertible {
    /// The request's deadline passed before a response arrived.
    case timeout
    /// The connection broke (reset, closed, TLS failure mid-stream) with the request in flight.
    case connectionReset
    /// The server sent GOAWAY with a last stream id below this request's: it was never processed.
    case goAwayUnprocessed
    /// The server reset this request's stream (RST_STREAM).
    case streamReset
    /// No connection could be opened (DNS, TCP or TLS handshake failed).
    case connectFailed

    /// The text shown in logs and error messages.
    public var description: String {
        switch self {
        case .timeout: "timeout"
        case .connectionReset: "connection reset"
        case .goAwayUnprocessed: "GOAWAY before the request was processed"
        case .streamReset: "stream reset"
        case .connectFailed: "connection failed"
        }
    }
}
