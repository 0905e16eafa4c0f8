import APNs
import APNsSimulator
import ScorecastLogging
import Server
import ServiceBase

/// The built-in simulator as the server's ``BuiltInAPNs``: what `serve`, `demo` and the CLI's
/// commands hand the runtime, so that the server itself never imports the simulator.
package struct BuiltInSimulatorAPNs: BuiltInAPNs {
    /// The message when the built-in simulator is needed but not running.
    package static let notRunning = """
        the built-in APNs simulator is not running: start `scorecast serve` (or `scorecast demo`) in another \
        terminal, or configure SCORECAST_APNS_* for Apple's servers
        """

    /// The built-in simulator.
    package init() {}

    /// Starts the simulator in this process (``BuiltInSimulator/start(configuration:logger:)``).
    package func start(_ configuration: Configuration, logger: Logger) throws -> (any BuiltInAPNsService, BuiltInAPNsEndpoints) {
        let (simulator, endpoints) = try BuiltInSimulator.start(configuration: configuration, logger: logger)
        return (simulator, Self.endpoints(endpoints))
    }

    /// The endpoints of the built-in simulator of a running `serve`: its file exists, its
    /// process is alive and its admin port answers. Throws `RuntimeError(.failure, …)` otherwise.
    package func running(_ configuration: Configuration) async throws -> BuiltInAPNsEndpoints {
        guard let file = try BuiltInSimulatorFile.read(stateDirectory: configuration.stateDirectory),
              BuiltInSimulatorFile.processIsAlive(file.pid),
              await BuiltInSimulatorAdmin(port: file.adminPort).isAnswering()
        else {
            throw RuntimeError(.failure, Self.notRunning)
        }
        return Self.endpoints(file.endpoints)
    }

    /// The simulator's send and management ports as its clients reach them: loopback, trusting
    /// its CA file.
    package static func endpoints(_ endpoints: SimulatorEndpoints) -> BuiltInAPNsEndpoints {
        BuiltInAPNsEndpoints(
            send: APNsEndpoint(host: "127.0.0.1", port: endpoints.sendPort, caFile: endpoints.caCertificatePath),
            management: APNsEndpoint(host: "127.0.0.1", port: endpoints.managementPort, caFile: endpoints.caCertificatePath))
    }
}

extension BuiltInSimulator: BuiltInAPNsService {}
