import APNs
import APNsSimulator
import Foundation
import Lifecycle
import ScorecastLogging
import Postgres

/// How a process reaches APNs: clients on the configured hosts, or on the built-in simulator.
///
/// - `serve` calls ``start(_:pool:logger:)``: with `SCORECAST_APNS_*` hosts its clients go to
///   them; without, it starts the simulator in-process (``simulator``, a service to run),
///   registers every app's key with it and its clients go to the simulator's ports.
/// - CLI commands call ``connect(_:logger:)``: the configured hosts, or the simulator of a
///   running `serve` found through `<state>/apns-sim/endpoints.json`.
///
/// APNs takes one team per connection, so there is one client per signing key:
/// ``clients``' `client(for: credentials)` (it also routes channel management by itself).
/// Call ``shutdown()`` when done.
package struct APNsRuntime: Sendable {
    /// The APNs clients, one per team and key.
    package let clients: APNsClientSet
    /// The in-process simulator `serve` started (run it as a service), if any.
    package let simulator: BuiltInSimulator?
    /// Where the simulator a CLI command uses listens, when it uses the built-in one.
    package let simulatorEndpoints: SimulatorEndpoints?

    /// The message when the built-in simulator is needed but not running.
    package static let simulatorNotRunning = """
        the built-in APNs simulator is not running: start `scorecast serve` (or `scorecast demo`) in another \
        terminal, or configure SCORECAST_APNS_* for Apple's servers
        """

    /// For `serve`: clients on the configured hosts, or the built-in simulator started
    /// in-process with every app of the database registered.
    /// - Parameters:
    ///   - connectionObserver: told of every connection the clients open or close.
    ///   - clock: the service's clock, the clients' deadlines and tokens go by.
    package static func start(_ configuration: Configuration, pool: PostgresPool, logger: Logger,
                             connectionObserver: (any APNsConnectionObserver)? = nil,
                             clock: any ServiceClock = SystemServiceClock()) async throws -> APNsRuntime {
        switch configuration.apns {
        case .remote(let send, let management):
            let clients = try makeClients(configuration, send: endpoint(send), management: endpoint(management),
                                          connectionObserver: connectionObserver, clock: clock, logger: logger)
            return APNsRuntime(clients: clients, simulator: nil, simulatorEndpoints: nil)
        case .builtInSimulator:
            let (simulator, endpoints) = try BuiltInSimulator.start(configuration: configuration, logger: logger)
            do {
                let apps: [AppRecord]
                do {
                    apps = try await AppStore(pool: pool).all()
                } catch let error as PostgresError where error.sqlState == "42P01" {
                    apps = []  // not migrated yet (SCORECAST_AUTO_MIGRATE=false): nothing to register
                }
                let teams = simulator.register(apps: apps)
                logger.info("registered apps with the built-in APNs simulator", ["apps": String(apps.count), "teams": String(teams)])
                let clients = try makeClients(
                    configuration, endpoints: endpoints, connectionObserver: connectionObserver, clock: clock, logger: logger)
                return APNsRuntime(clients: clients, simulator: simulator, simulatorEndpoints: endpoints)
            } catch {
                // The simulator is listening already: stop it rather than leak its ports and file.
                await ServiceGroup.stop([simulator], gracePeriod: configuration.shutdownGrace, logger: logger)
                throw error
            }
        }
    }

    /// For CLI commands: clients on the configured hosts, or on the simulator of a running
    /// `serve` (exit code 1 with ``simulatorNotRunning`` when there is none).
    package static func connect(_ configuration: Configuration, logger: Logger) async throws -> APNsRuntime {
        switch configuration.apns {
        case .remote(let send, let management):
            let clients = try makeClients(configuration, send: endpoint(send), management: endpoint(management), logger: logger)
            return APNsRuntime(clients: clients, simulator: nil, simulatorEndpoints: nil)
        case .builtInSimulator:
            let endpoints = try await runningSimulator(configuration)
            let clients = try makeClients(configuration, endpoints: endpoints, logger: logger)
            return APNsRuntime(clients: clients, simulator: nil, simulatorEndpoints: endpoints)
        }
    }

    /// The endpoints of the built-in simulator of a running `serve`: its file exists, its
    /// process is alive and its admin port answers. Throws `RuntimeError(.failure, …)` otherwise.
    package static func runningSimulator(_ configuration: Configuration) async throws -> SimulatorEndpoints {
        guard let file = try BuiltInSimulatorFile.read(stateDirectory: configuration.stateDirectory),
              BuiltInSimulatorFile.processIsAlive(file.pid),
              await BuiltInSimulatorAdmin(port: file.adminPort).isAnswering()
        else {
            throw RuntimeError(.failure, simulatorNotRunning)
        }
        return file.endpoints
    }

    /// Clients for the simulator at `endpoints` (loopback, trusting its CA file).
    package static func makeClients(_ configuration: Configuration, endpoints: SimulatorEndpoints,
                                   connectionObserver: (any APNsConnectionObserver)? = nil,
                                   clock: any ServiceClock = SystemServiceClock(), logger: Logger) throws -> APNsClientSet {
        try makeClients(
            configuration,
            send: APNsEndpoint(host: "127.0.0.1", port: endpoints.sendPort, caFile: endpoints.caCertificatePath),
            management: APNsEndpoint(host: "127.0.0.1", port: endpoints.managementPort, caFile: endpoints.caCertificatePath),
            proxy: .direct, connectionObserver: connectionObserver, clock: clock, logger: logger)
    }

    /// The client settings for `send` and `management` with the configured connection count,
    /// deadline and token age.
    /// `proxy`: by default `SCORECAST_APNS_PROXY`, or the environment's `HTTPS_PROXY` when unset.
    package static func clientConfiguration(_ configuration: Configuration, send: APNsEndpoint, management: APNsEndpoint,
                                           proxy: APNsProxy? = nil) -> APNsClientConfiguration {
        var settings = APNsClientConfiguration(sendEndpoint: send, managementEndpoint: management)
        settings.maxConnectionsPerHost = min(max(configuration.apnsConnectionsPerHost, 1), 16)
        settings.requestTimeout = configuration.apnsRequestTimeout
        settings.connectTimeout = min(settings.connectTimeout, configuration.apnsRequestTimeout)
        settings.tokenRenewalAge = configuration.apnsTokenRefresh
        settings.proxy = proxy ?? configuration.apnsProxy.map { .url($0) } ?? .environment
        return settings
    }

    /// Clients (one per signing key, made on first use) on `send` and `management`, going by `clock`.
    package static func makeClients(_ configuration: Configuration, send: APNsEndpoint, management: APNsEndpoint,
                                   proxy: APNsProxy? = nil, connectionObserver: (any APNsConnectionObserver)? = nil,
                                   clock: any ServiceClock = SystemServiceClock(), logger: Logger) throws -> APNsClientSet {
        do {
            return try APNsClientSet(
                configuration: clientConfiguration(configuration, send: send, management: management, proxy: proxy), logger: logger.named("apns"),
                connectionObserver: connectionObserver, clock: clock)
        } catch {
            throw RuntimeError(.invalidSettings, "the APNs settings are unusable: \(error.message)")
        }
    }

    /// Stops the clients (the simulator stops with its service group).
    package func shutdown() async {
        await clients.shutdown()
    }

    private static func endpoint(_ endpoint: Configuration.Endpoint) -> APNsEndpoint {
        APNsEndpoint(host: endpoint.host, port: endpoint.port, caFile: endpoint.caFile)
    }
}
