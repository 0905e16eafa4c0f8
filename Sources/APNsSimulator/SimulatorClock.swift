import Foundation
import Synchronization

/// Where the simulator reads wall-clock time: token ages, budget windows, expiration checks.
/// Injected so tests can move time without sleeping.
public protocol SimulatorClock: Sendable {
    /// The current time, in seconds since 1970 (UNIX time, fractional).
    func now() -> Double
}

/// The system's real-time clock.
public struct SystemSimulatorClock: SimulatorClock {
    /// Creates the clock.
    public init() {}

    /// `CLOCK_REALTIME` in seconds.
    public func now() -> Double {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1_000_000_000
    }
}

/// A clock that only moves when told to; for tests.
public final class ManualSimulatorClock: SimulatorClock {
    private let current: Mutex<Double>

    /// Starts at `start` (UNIX seconds), by default the real time now.
    public init(start: Double = SystemSimulatorClock().now()) {
        current = Mutex(start)
    }

    /// The time the clock was set or advanced to.
    public func now() -> Double { current.withLock { $0 } }

    /// Moves the clock forward (or back, with a negative value) by `seconds`.
    public func advance(by seconds: Double) { current.withLock { $0 += seconds } }

    /// Sets the clock to `time` (UNIX seconds).
    public func set(_ time: Double) { current.withLock { $0 = time } }
}
