/// Where the transport reads the time. Production reads `ContinuousClock`; tests move time
/// forward so that age limits and deadlines act without waiting on the wall clock (a margin
/// measured in wall-clock seconds fails on a loaded machine).
struct TransportClock: Sendable {
    let now: @Sendable () -> ContinuousClock.Instant

    /// The process's monotonic clock.
    static let continuous = TransportClock { ContinuousClock.now }
}
