/// The decisions of a supervisor about a server it started, without I/O: when to try a restart
/// (at once, then with a doubling pause after each failed attempt) and whether the server has
/// been gone for longer than the process may still call itself healthy.
///
/// Times are given, never read, so tests drive it through minutes of outage at once.
public struct ServerSupervision: Sendable {
    /// A point in time on the supervisor's clock.
    public typealias Instant = ContinuousClock.Instant

    /// What the supervisor does after looking at the server.
    public enum Action: Sendable, Equatable {
        /// The server runs, or the next attempt is not due yet.
        case nothing
        /// Start the server again; `attempt` counts from 1 since it went away.
        case restart(attempt: Int)
    }

    /// How long the server may be gone before the process reports itself unhealthy.
    public let recoveryLimit: Duration
    /// The pause after the first failed attempt; it doubles after each further one.
    public let firstPause: Duration
    /// The longest pause between two attempts.
    public let longestPause: Duration

    /// Since when the server has been gone (`nil` while it runs).
    public private(set) var goneSince: Instant?
    /// Restart attempts since it went away.
    public private(set) var attempts = 0
    private var nextAttempt: Instant?

    /// A supervisor's state for a running server.
    public init(recoveryLimit: Duration, firstPause: Duration = .milliseconds(500), longestPause: Duration = .seconds(10)) {
        self.recoveryLimit = recoveryLimit
        self.firstPause = firstPause
        self.longestPause = longestPause
    }

    /// Records what the supervisor saw at `now` and says what to do. A server that runs again
    /// (restarted, or back by itself) ends the outage.
    public mutating func observe(running: Bool, at now: Instant) -> Action {
        if running {
            goneSince = nil
            attempts = 0
            nextAttempt = nil
            return .nothing
        }
        if goneSince == nil {
            goneSince = now
            nextAttempt = now
        }
        guard let due = nextAttempt, now >= due else { return .nothing }
        attempts += 1
        // Until the attempt reports back, no other is due.
        nextAttempt = nil
        return .restart(attempt: attempts)
    }

    /// The attempt started at `now` failed: the next is due after the pause for this attempt.
    public mutating func restartFailed(at now: Instant) {
        nextAttempt = now + pause(after: attempts)
    }

    /// The pause after the `attempt`-th failed attempt: `firstPause`, doubling, at most `longestPause`.
    public func pause(after attempt: Int) -> Duration {
        var pause = firstPause
        for _ in 1..<max(1, attempt) {
            pause *= 2
            if pause >= longestPause { return longestPause }
        }
        return min(pause, longestPause)
    }

    /// Whether, at `now`, the server is running or has been gone for less than `recoveryLimit`.
    public func isHealthy(at now: Instant) -> Bool {
        guard let goneSince else { return true }
        return now - goneSince < recoveryLimit
    }
}
