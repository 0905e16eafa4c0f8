import APNs
import Clocks
import Foundation
import Lifecycle
import Postgres
import Registry
import ScorecastLogging
import ServiceBase

/// How a process reaches APNs: clients on the configured hosts, or on the built-in simulator
/// (a ``BuiltInAPNs``, which the caller provides).
///
/// - `serve` calls ``start(_:pool:builtIn:logger:connectionObserver:)``: with `SCORECAST_APNS_*`
///   hosts its clients go to them; without, it starts the simulator in-process (``simulator``, a
///   service to run), registers every app's key with it and its clients go to the simulator's ports.
/// - CLI commands call ``connect(_:builtIn:logger:)``: the configured hosts, or the simulator of
///   a running `serve`.
///
/// APNs takes one team per connection, so there is one client per signing key:
/// ``clients``' `client(for: credentials)` (it also routes channel management by itself).
/// Call ``shutdown()`` when done.
package struct APNsRuntime: Sendable {
    /// The APNs clients, one per team and key.
    package let clients: APNsClientSet
    /// The in-process simulator `serve` started (run it as a service), if any.
    package let simulator: (any BuiltInAPNsService)?
    /// Where the simulator a CLI command uses listens, when it uses the built-in one.
    package let simulatorEndpoints: BuiltInAPNsEndpoints?

    /// For `serve`: clients on the configured hosts, or the built-in simulator started
    /// in-process (`builtIn`) with every app of the database registered.
    /// - Parameters:
    ///   - connectionObserver: told of every connection the clients open or close.
    ///   - clock: the service's clock, the clients' deadlines and tokens go by.
    package static func start(_ configuration: Configuration, pool: PostgresPool, builtIn: any BuiltInAPNs, logger: Logger,
                             connectionObserver: (any APNsConnectionObserver)? = nil,
                             clock: any ServiceClock = SystemServiceClock()) async throws -> APNsRuntime {
        switch configuration.apns {
        case .remote(let send, let management):
            let clients = try makeClients(configuration, send: endpoint(send), management: endpoint(management),
                                          connectionObserver: connectionObserver, clock: clock, logger: logger)
            return APNsRuntime(clients: clients, simulator: nil, simulatorEndpoints: nil)
        case .builtInSimulator:
            let (simulator, endpoints) = try builtIn.start(configuration, logger: logger)
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
    /// `serve` (`builtIn`'s; exit code 1 when there is none).
    package static func connect(_ configuration: Configuration, builtIn: any BuiltInAPNs, logger: Logger) async throws -> APNsRuntime {
        switch configuration.apns {
        case .remote(let send, let management):
            let clients = try makeClients(configuration, send: endpoint(send), management: endpoint(management), logger: logger)
            return APNsRuntime(clients: clients, simulator: nil, simulatorEndpoints: nil)
        case .builtInSimulator:
            let endpoints = try await builtIn.running(configuration)
            let clients = try makeClients(configuration, endpoints: endpoints, logger: logger)
            return APNsRuntime(clients: clients, simulator: nil, simulatorEndpoints: endpoints)
        }
    }

    /// Clients for the simulator at `endpoints` (on this machine: never through a proxy).
    package static func makeClients(_ configuration: Configuration, endpoints: BuiltInAPNsEndpoints,
                                   connectionObserver: (any APNsConnectionObserver)? = nil,
                                   clock: any ServiceClock = SystemServiceClock(), logger: Logger) throws -> APNsClientSet {
        try makeClients(
            configuration, send: endpoints.send, management: endpoints.management,
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
