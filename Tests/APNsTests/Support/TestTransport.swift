import Clocks
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
                        clock: any ServiceClock = SystemServiceClock()) -> TransportOptions {
        TransportOptions(
            maxConnectionsPerHost: connections, maxConcurrentStreams: streams, connectTimeout: connectTimeout,
            maxConnectionRetries: retries, idleConnectionMaxAgeSeconds: idleMaxAgeSeconds, keepAliveIdleSeconds: 60,
            keepAliveIntervalSeconds: 30, maxResponseBytes: maxResponseBytes, proxy: proxy, clock: clock)
    }
}
