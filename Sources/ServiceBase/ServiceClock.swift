import Foundation

/// Where the service gets the time and how it waits — the poller, the workers, the device
/// fan-out, ingest, the statistics and the gauges alike: one system clock in `serve`, a manual
/// one in tests, so that every duty's decision can be driven through hours in milliseconds,
/// and a lease runs out when a test steps the clock past it.
package protocol ServiceClock: Sendable {
    /// The current wall-clock time.
    func now() -> Date
    /// Waits `duration` of this clock's time; returns early (without error) when the task is
    /// cancelled.
    func sleep(for duration: Duration) async
}

/// The system's wall clock, sleeping with `Task.sleep`.
package struct SystemServiceClock: ServiceClock {
    /// Creates the clock.
    package init() {}

    /// `Date()`.
    package func now() -> Date { Date() }

    /// `Task.sleep(for:)`, ending early on cancellation.
    package func sleep(for duration: Duration) async {
        try? await Task.sleep(for: duration)
    }
}

extension Date {
    /// This time moved by `duration`.
    package func adding(_ duration: Duration) -> Date {
        addingTimeInterval(duration.timeInterval)
    }

    /// The start of the minute containing this time (UTC, whole minutes since 1970).
    package var minuteStart: Date { flooring(toMultipleOf: 60) }

    /// The start of the `seconds`-long span containing this time, spans aligned to 1970-01-01.
    package func flooring(toMultipleOf seconds: Double) -> Date {
        Date(timeIntervalSince1970: (timeIntervalSince1970 / seconds).rounded(.down) * seconds)
    }
}

extension Duration {
    /// The duration in seconds, as a `TimeInterval`.
    package var timeInterval: TimeInterval {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
