import ScorecastLogging
import Synchronization
import TestSupport
@testable import APNs

enum TestLog {
    /// Warnings and worse go to standard error; tests stay quiet otherwise.
    static let logger = Logger(label: "apns-test", level: .warning)
}

enum TestTransport {
    static func options(connections: Int = 2, streams: Int = 100, retries: Int = 2, maxResponseBytes: Int = 65_536,
                        connectTimeout: Duration = hangDeadline, idleMaxAgeSeconds: Int = 3600, proxy: String? = nil,
                        clock: TransportClock = .continuous) -> TransportOptions {
        TransportOptions(
            maxConnectionsPerHost: connections, maxConcurrentStreams: streams, connectTimeout: connectTimeout,
            maxConnectionRetries: retries, idleConnectionMaxAgeSeconds: idleMaxAgeSeconds, keepAliveIdleSeconds: 60,
            keepAliveIntervalSeconds: 30, maxResponseBytes: maxResponseBytes, proxy: proxy, clock: clock)
    }
}

/// A clock that stands still until the test moves it: the transport sees hours pass in an
/// instant, and no wall time passing between two requests counts, so age limits are tested
/// exactly at their boundary. (libcurl still enforces each request's deadline by its own clock.)
final class AdvancingClock: Sendable {
    private let start = ContinuousClock.now
    private let offset = Mutex<Duration>(.zero)

    var transportClock: TransportClock {
        TransportClock { [self] in start + offset.withLock { $0 } }
    }

    func advance(by duration: Duration) {
        offset.withLock { $0 += duration }
    }
}
