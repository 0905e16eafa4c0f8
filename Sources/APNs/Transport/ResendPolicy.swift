/// Whether a request whose attempt failed without an answer goes out again. Pure.
///
/// - A request the server certainly never processed (refused stream, above a GOAWAY's last
///   stream id, never written) is sent again on a fresh connection while its deadline allows,
///   up to `neverProcessedAttemptCap` attempts (only so that a server refusing everything
///   cannot keep the loop busy until the deadline).
/// - A request that may have been processed (connection cut, stream reset) is sent again only
///   when it is `retrySafe`, and at most `maxConnectionRetries` more times.
/// - A connection that could not be opened counts as a failed attempt of every request waiting
///   for it, resent up to `maxConnectionRetries` more times.
/// - Timeouts, TLS failures, unusable answers, cancellation and shutdown are final.
struct ResendPolicy {
    let maxConnectionRetries: Int
    static let neverProcessedAttemptCap = 10

    /// `true` when the request should wait for another connection.
    /// - Parameters:
    ///   - failures: failed attempts so far, this one included.
    func shouldResend(_ error: APNsClientError, retrySafe: Bool, failures: Int, cancelled: Bool,
                      now: ContinuousClock.Instant, deadline: ContinuousClock.Instant) -> Bool {
        guard !cancelled, now < deadline else { return false }
        switch error.code {
        case .connectionLost:
            if error.neverProcessed { return failures < Self.neverProcessedAttemptCap }
            return retrySafe && failures <= maxConnectionRetries
        case .connectionFailed:
            return failures <= maxConnectionRetries
        default:
            return false
        }
    }
}
