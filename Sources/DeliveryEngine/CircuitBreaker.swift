import Foundation

/// One APNs host's circuit breaker: a pure state machine, time passed in.
///
/// While the host fails (5xx, resets, timeouts, refused connections), every attempt is a
/// doomed request and a backoff step for a channel that did nothing wrong. After
/// ``Policy/failureThreshold`` consecutive host failures the breaker opens: nothing is sent.
/// When the open interval has passed, one send goes as a probe; a healthy answer closes the
/// breaker at once (the caller then lets every row's backoff go, so recovery takes seconds),
/// a failure reopens it for twice as long (up to ``Policy/maximumOpenInterval``). An outage
/// costs one probe per interval, not thousands of requests, and no channel's state is dropped.
public struct CircuitBreaker: Sendable, Hashable {
    /// When the breaker opens and how often it probes.
    public struct Policy: Sendable, Hashable {
        /// Consecutive host failures that open the breaker. Default 10.
        public var failureThreshold: Int
        /// The first open interval, in seconds. Default 1.
        public var initialOpenInterval: Double
        /// The longest open interval, in seconds: the longest a recovered host waits for its
        /// next probe. Default 4.
        public var maximumOpenInterval: Double
        /// A probe with no answer after this many seconds counts as failed (above the APNs
        /// request deadline, so it normally answers first). Default 30.
        public var probeTimeout: Double

        /// Creates a policy.
        public init(failureThreshold: Int = 10, initialOpenInterval: Double = 1, maximumOpenInterval: Double = 4, probeTimeout: Double = 30) {
            self.failureThreshold = max(1, failureThreshold)
            self.initialOpenInterval = max(0, initialOpenInterval)
            self.maximumOpenInterval = max(self.initialOpenInterval, maximumOpenInterval)
            self.probeTimeout = max(0, probeTimeout)
        }
    }

    /// Where the breaker is.
    public enum State: Sendable, Hashable {
        /// Sending; `failures` consecutive host failures so far.
        case closed(failures: Int)
        /// Not sending until `until`; `interval` is how long it opened for.
        case open(until: Date, interval: Double)
        /// One probe in flight since `since`.
        case probing(since: Date, interval: Double)
    }

    /// What a worker may do now.
    public enum Permission: Sendable, Hashable {
        /// Send as usual.
        case send
        /// Send one row: the probe (its backoff ignored — the row is not at fault).
        case probe
        /// Send nothing before `until` (or before the probe in flight answers).
        case wait(until: Date)
    }

    /// How a send went, as far as the host's health is concerned.
    public enum HostOutcome: Sendable, Hashable {
        /// The host answered (any status but 5xx: a 400 or a 429 is a healthy host).
        case answered
        /// 5xx, reset, GOAWAY, timeout, connection refused.
        case failed
    }

    /// What a recorded outcome changed.
    public enum Transition: Sendable, Hashable {
        /// Nothing worth telling.
        case none
        /// The breaker opened (or reopened after a failed probe) until `until`.
        case opened(until: Date)
        /// The breaker closed: the host answers again.
        case closed
    }

    /// The current state.
    public private(set) var state: State = .closed(failures: 0)
    /// The policy.
    public let policy: Policy

    /// A closed breaker.
    public init(policy: Policy = Policy()) {
        self.policy = policy
    }

    /// Whether sends are held back (open or probing).
    public var isOpen: Bool {
        if case .closed = state { return false }
        return true
    }

    /// What may be sent at `now`; hands out at most one probe at a time.
    public mutating func permission(now: Date) -> Permission {
        switch state {
        case .closed:
            return .send
        case .open(let until, let interval):
            guard now >= until else { return .wait(until: until) }
            state = .probing(since: now, interval: interval)
            return .probe
        case .probing(let since, let interval):
            let deadline = since.addingTimeInterval(policy.probeTimeout)
            guard now >= deadline else { return .wait(until: deadline) }
            state = .probing(since: now, interval: interval)
            return .probe
        }
    }

    /// The probe found nothing to send: probe again after the same interval.
    public mutating func probeFoundNothing(now: Date) {
        guard case .probing(_, let interval) = state else { return }
        state = .open(until: now.addingTimeInterval(interval), interval: interval)
    }

    /// Records a send's outcome at `now`.
    public mutating func record(_ outcome: HostOutcome, now: Date) -> Transition {
        switch (state, outcome) {
        case (.closed, .answered):
            state = .closed(failures: 0)
            return .none
        case (.closed(let failures), .failed):
            guard failures + 1 >= policy.failureThreshold else {
                state = .closed(failures: failures + 1)
                return .none
            }
            return open(interval: policy.initialOpenInterval, now: now)
        case (.open, .answered), (.probing, .answered):
            state = .closed(failures: 0)
            return .closed
        case (.open, .failed):
            // A straggler of the batch that opened it.
            return .none
        case (.probing(_, let interval), .failed):
            return open(interval: min(policy.maximumOpenInterval, max(interval * 2, policy.initialOpenInterval)), now: now)
        }
    }

    private mutating func open(interval: Double, now: Date) -> Transition {
        let until = now.addingTimeInterval(interval)
        state = .open(until: until, interval: interval)
        return .opened(until: until)
    }
}
