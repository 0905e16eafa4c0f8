import Clocks
import DeliveryEngine
import Foundation
import ScorecastCore
import ServiceBase
import Synchronization

/// The circuit breaker of the APNs host this pool sends to (a process has one send host),
/// shared by its workers: ``CircuitBreaker`` behind a lock, on the service clock.
final class HostBreaker: Sendable {
    private let breaker: Mutex<CircuitBreaker>
    private let clock: any ServiceClock

    init(policy: CircuitBreaker.Policy, clock: any ServiceClock = SystemServiceClock()) {
        breaker = Mutex(CircuitBreaker(policy: policy))
        self.clock = clock
    }

    /// What a worker may send now.
    func permission() -> CircuitBreaker.Permission {
        let now = clock.now()
        return breaker.withLock { $0.permission(now: now) }
    }

    /// The probe claimed nothing.
    func probeFoundNothing() {
        let now = clock.now()
        breaker.withLock { $0.probeFoundNothing(now: now) }
    }

    /// Records what a send says about the host's health; `nil` (nothing reached the host)
    /// changes nothing.
    func record(_ outcome: CircuitBreaker.HostOutcome?) -> CircuitBreaker.Transition {
        guard let outcome else { return .none }
        let now = clock.now()
        return breaker.withLock { $0.record(outcome, now: now) }
    }

    /// Whether sends are held back.
    var isOpen: Bool { breaker.withLock { $0.isOpen } }
}

extension SendOutcome {
    /// What the outcome says about the host: 5xx and transport failures are failures, any
    /// other answer is a healthy host; nothing sent says nothing.
    var hostOutcome: CircuitBreaker.HostOutcome? {
        switch self {
        case .answered(let response):
            return (500..<600).contains(response.status) ? .failed : .answered
        case .failed(let error):
            // A GOAWAY's unprocessed streams: the host is healthy, only the connection ended.
            guard let failure = error.transportFailure, failure != .goAwayUnprocessed else { return nil }
            return .failed
        case .credentialsUnavailable:
            return nil
        }
    }
}
