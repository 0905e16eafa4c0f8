import Foundation

/// Where the service gets the time and how it waits — every duty, worker, store, endpoint, the
/// APNs client and the logs alike: the system clock in `serve`, a ``ManualServiceClock`` in
/// tests, so that every decision can be driven through hours in milliseconds, and a lease runs
/// out when a test steps the clock past it.
///
/// Two readings, for two jobs: ``now()`` is the wall clock, for what is stored and compared with
/// stored times (the time reaches SQL as a bound parameter, never `now()`); ``monotonicNow()``
/// is for deadlines and ages inside one process, which must not jump when the wall clock is set.
public protocol ServiceClock: Sendable {
    /// The current wall-clock time.
    func now() -> Date
    /// A monotonic reading, for deadlines and ages within this process (never stored).
    func monotonicNow() -> ContinuousClock.Instant
    /// Waits `duration` of this clock's time; returns early (without error) when the task is
    /// cancelled.
    func sleep(for duration: Duration) async
}

/// The system's clocks: `Date()` and `ContinuousClock`, sleeping with `Task.sleep`.
public struct SystemServiceClock: ServiceClock {
    /// Creates the clock.
    public init() {}

    /// `Date()`.
    public func now() -> Date { Date() }

    /// `ContinuousClock.now`.
    public func monotonicNow() -> ContinuousClock.Instant { ContinuousClock.now }

    /// `Task.sleep(for:)`, ending early on cancellation.
    public func sleep(for duration: Duration) async {
        try? await Task.sleep(for: duration)
    }
}
