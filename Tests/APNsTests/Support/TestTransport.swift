import Logging
import Synchronization
@testable import APNs

enum TestLog {
    /// Warnings and worse go to standard error; tests stay quiet otherwise.
    static let logger = Logger(label: "apns-test", level: .warning)
}

enum TestTransport {
    static func options(connections: Int = 2, streams: Int = 100, retries: Int = 2, maxResponseBytes: Int = 65_536,
                        connectTimeout: Duration = .seconds(5), idleMaxAgeSeconds: Int = 3600,
                        pingInterval: Duration = .seconds(60), pingTimeout: Duration = .seconds(5),
                        clock: TransportClock = .continuous) -> TransportOptions {
        TransportOptions(
            maxConnectionsPerHost: connections, maxConcurrentStreams: streams, connectTimeout: connectTimeout,
            maxConnectionRetries: retries, idleConnectionMaxAgeSeconds: idleMaxAgeSeconds, keepAliveIdleSeconds: 60,
            keepAliveIntervalSeconds: 30, maxResponseBytes: maxResponseBytes,
            idlePingInterval: pingInterval, pingTimeout: pingTimeout, clock: clock)
    }
}

/// The monotonic clock plus an offset the test moves forward: the transport sees hours pass
/// in an instant, so age limits are tested without wall-clock margins.
final class AdvancingClock: Sendable {
    private let offset = Mutex<Duration>(.zero)

    var transportClock: TransportClock {
        TransportClock { [self] in ContinuousClock.now + self.offset.withLock { $0 } }
    }

    func advance(by duration: Duration) {
        offset.withLock { $0 += duration }
    }
}
