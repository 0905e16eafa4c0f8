/// The idle age limit of an endpoint's connections, as a pure decision with `now` passed in
/// (tested without waiting; the transport reads `now` from its injectable clock).
///
/// APNs wants connections kept for hours (apns.md §9), but one left idle longer than the limit
/// is not trusted any more: the next request opens a fresh connection
/// (`CURLOPT_FRESH_CONNECT`). libcurl's own `CURLOPT_MAXAGE_CONN`, set to the same limit,
/// closes the old connection by its own clock.
struct IdleAgeLimit {
    let maxIdle: Duration

    /// Whether the next request to an endpoint needs a fresh connection.
    /// - Parameters:
    ///   - lastActivity: when a request to the endpoint last started or ended (`nil`: never).
    ///   - inFlight: requests to the endpoint on their way now (a busy endpoint is not idle).
    func requiresFreshConnection(lastActivity: ContinuousClock.Instant?, inFlight: Int,
                                 now: ContinuousClock.Instant) -> Bool {
        guard let lastActivity, inFlight == 0 else { return false }
        return now - lastActivity >= maxIdle
    }
}
