import APNs
import APNsSimulator
import Foundation
import Logging
import Postgres

/// How a process reaches APNs: a client on the configured hosts, or on the built-in simulator.
///
/// - `serve` calls ``start(_:pool:logger:)``: with `SCORECAST_APNS_*` hosts it makes a client
///   on them; without, it starts the simulator in-process (``simulator``, a service to run),
///   registers every app's key with it and makes a client on its ports.
/// - CLI commands call ``connect(_:logger:)``: the configured hosts, or the simulator of a
///   running `serve` found through `<state>/apns-sim/endpoints.json`.
///
/// Call ``shutdown()`` when done with the client.
public struct APNsRuntime: Sendable {
    /// The APNs client.
    public let client: APNsClient
    /// The in-process simulator `serve` started (run it as a service), if any.
    public let simulator: BuiltInSimulator?
    /// Where the simulator a CLI command uses listens, when it uses the built-in one.
    public let simulatorEndpoints: SimulatorEndpoints?

    /// The message when the built-in simulator is needed but not running.
    public static let simulatorNotRunning = """
        the built-in APNs simulator is not running: start `scorecast serve` (or `scorecast demo`) in another \
        terminal, or configure SCORECAST_APNS_* for Apple's servers
        """

    /// For `serve`: a client on the configured hosts, or the built-in simulator started
    /// in-process with every app of the database registered.
    public static func start(_ configuration: Configuration, pool: PostgresPool, logger: Logger) async throws -> APNsRuntime {
        switch configuration.apns {
        case .remote(let send, let management):
            let client = try makeClient(configuration, send: endpoint(send), management: endpoint(management), logger: logger)
            return APNsRuntime(client: client, simulator: nil, simulatorEndpoints: nil)
        case .builtInSimulator:
            let (simulator, endpoints) = try BuiltInSimulator.start(configuration: configuration, logger: logger)
            let apps: [AppRecord]
            do {
                apps = try await AppStore(pool: pool).all()
            } catch let error as PostgresError where error.sqlState == "42P01" {
                apps = []  // not migrated yet (SCORECAST_AUTO_MIGRATE=false): nothing to register
            }
            let teams = simulator.register(apps: apps)
            logger.info("registered apps with the built-in APNs simulator", ["apps": String(apps.count), "teams": String(teams)])
            let client = try makeClient(configuration, endpoints: endpoints, logger: logger)
            return APNsRuntime(client: client, simulator: simulator, simulatorEndpoints: endpoints)
        }
    }

    /// For CLI commands: a client on the configured hosts, or on the simulator of a running
    /// `serve` (exit code 1 with ``simulatorNotRunning`` when there is none).
    public static func connect(_ configuration: Configuration, logger: Logger) async throws -> APNsRuntime {
        switch configuration.apns {
        case .remote(let send, let management):
            let client = try makeClient(configuration, send: endpoint(send), management: endpoint(management), logger: logger)
            return APNsRuntime(client: client, simulator: nil, simulatorEndpoints: nil)
        case .builtInSimulator:
            let endpoints = try await runningSimulator(configuration)
            let client = try makeClient(configuration, endpoints: endpoints, logger: logger)
            return APNsRuntime(client: client, simulator: nil, simulatorEndpoints: endpoints)
        }
    }

    /// The endpoints of the built-in simulator of a running `serve`: its file exists, its
    /// process is alive and its admin port answers. Throws `CommandError(.failure, …)` otherwise.
    public static func runningSimulator(_ configuration: Configuration) async throws -> SimulatorEndpoints {
        guard let file = try BuiltInSimulatorFile.read(stateDirectory: configuration.stateDirectory),
              BuiltInSimulatorFile.processIsAlive(file.pid),
              await BuiltInSimulatorAdmin(port: file.adminPort).isAnswering()
        else {
            throw CommandError(.failure, simulatorNotRunning)
        }
        return file.endpoints
    }

    /// A client for the simulator at `endpoints` (loopback, trusting its CA file).
    public static func makeClient(_ configuration: Configuration, endpoints: SimulatorEndpoints, logger: Logger) throws -> APNsClient {
        try makeClient(
            configuration,
            send: APNsEndpoint(host: "127.0.0.1", port: endpoints.sendPort, caFile: endpoints.caCertificatePath),
            management: APNsEndpoint(host: "127.0.0.1", port: endpoints.managementPort, caFile: endpoints.caCertificatePath),
            logger: logger)
    }

    /// A client on `send` and `management` with the configured connection count, deadline and
    /// token age.
    public static func makeClient(_ configuration: Configuration, send: APNsEndpoint, management: APNsEndpoint, logger: Logger) throws -> APNsClient {
        var settings = APNsClientConfiguration(sendEndpoint: send, managementEndpoint: management)
        settings.maxConnectionsPerHost = min(max(configuration.apnsConnectionsPerHost, 1), 16)
        settings.requestTimeout = configuration.apnsRequestTimeout
        settings.connectTimeout = min(settings.connectTimeout, configuration.apnsRequestTimeout)
        settings.tokenRenewalAge = configuration.apnsTokenRefresh
        do {
            return try APNsClient(configuration: settings, logger: logger.named("apns"))
        } catch {
            throw CommandError(.usage, "the APNs settings are unusable: \(error.message)")
        }
    }

    /// Stops the client (the simulator stops with its service group).
    public func shutdown() async {
        await client.shutdown()
    }

    private static func endpoint(_ endpoint: Configuration.Endpoint) -> APNsEndpoint {
        APNsEndpoint(host: endpoint.host, port: endpoint.port, caFile: endpoint.caFile)
    }
}

extension CommandContext {
    /// Connects to APNs for one command (see `APNsRuntime.connect`) and shuts the client down
    /// afterwards, whatever happens.
    public func withAPNs<T: Sendable>(
        _ configuration: Configuration, logger: Logger, _ body: (APNsRuntime) async throws -> T
    ) async throws -> T {
        let runtime = try await APNsRuntime.connect(configuration, logger: logger)
        do {
            let result = try await body(runtime)
            await runtime.shutdown()
            return result
        } catch {
            await runtime.shutdown()
            throw error
        }
    }
}
