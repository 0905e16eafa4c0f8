import APNs
import Lifecycle
import Registry
import ScorecastLogging
import ServiceBase

/// The APNs stand-in a process uses when no `SCORECAST_APNS_*` hosts are configured: `serve`
/// starts one in-process, CLI commands reach the one a running `serve` started. The server knows
/// it only through this protocol; the built-in simulator behind it belongs to the demo, and the
/// command line hands it to ``Application`` and ``APNsRuntime``.
package protocol BuiltInAPNs: Sendable {
    /// Starts one in this process: the service to run until shutdown, and where it listens.
    func start(_ configuration: Configuration, logger: Logger) throws -> (any BuiltInAPNsService, BuiltInAPNsEndpoints)
    /// Where the one of a running `serve` listens; throws `RuntimeError(.failure, …)` when none runs.
    func running(_ configuration: Configuration) async throws -> BuiltInAPNsEndpoints
}

/// A built-in APNs stand-in started in this process: run it as a service; it lets apps in.
package protocol BuiltInAPNsService: Service {
    /// Lets `apps` (their team keys and bundle ids) in; returns how many teams were registered.
    @discardableResult
    func register(apps: [AppRecord]) -> Int
}

/// Where a built-in APNs stand-in listens, as its clients reach it.
package struct BuiltInAPNsEndpoints: Sendable, Hashable {
    /// The send endpoint.
    package var send: APNsEndpoint
    /// The channel-management endpoint.
    package var management: APNsEndpoint

    /// Endpoints for `send` and `management`.
    package init(send: APNsEndpoint, management: APNsEndpoint) {
        self.send = send
        self.management = management
    }
}
