import Logging
@testable import APNs

enum TestLog {
    /// Warnings and worse go to standard error; tests stay quiet otherwise.
    static let logger = Logger(label: "apns-test", level: .warning)
}

enum TestTransport {
    static func options(connections: Int = 2, streams: Int = 100, retries: Int = 2, maxResponseBytes: Int = 65_536) -> TransportOptions {
        TransportOptions(
            maxConnectionsPerHost: connections, maxConcurrentStreams: streams, connectTimeout: .seconds(5),
            maxConnectionRetries: retries, idleConnectionMaxAgeSeconds: 3600, keepAliveIdleSeconds: 60,
            keepAliveIntervalSeconds: 30, maxResponseBytes: maxResponseBytes)
    }
}
