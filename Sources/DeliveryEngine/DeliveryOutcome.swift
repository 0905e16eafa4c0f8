/// The `deliveries.outcome` of one attempt.
public enum DeliveryOutcome: String, Sendable, Hashable, CaseIterable {
    /// APNs accepted it (2xx).
    case sent
    /// It failed and will be sent again.
    case retry
    /// It failed for good (a terminal reason, or retries exhausted).
    case failed
    /// The channel does not exist at APNs any more.
    case gone
    /// The app's credentials were refused; the app is paused.
    case paused
}
