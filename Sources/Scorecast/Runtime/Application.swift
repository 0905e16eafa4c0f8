import Foundation
import HTTPServer
import Lifecycle
import Logging
import Postgres

/// The running service: opens the database (embedded or not), migrates, starts the roles
/// as services of one group — the pool, the APNs clients, the simulator and the HTTP server
/// included — and tears everything down in reverse order on SIGTERM/SIGINT or a failure.
public struct Application: Sendable {
    /// What extra services (the demo's feed replay) get to work with once everything is up.
    public struct Running: Sendable {
        public let configuration: Configuration
        public let pool: PostgresPool
        public let apns: APNsRuntime
        /// The HTTP API's address, when the `api` role runs.
        public let httpBaseURL: URL?
        public let terminal: Terminal
        public let logger: Logger
    }

    let configuration: Configuration
    let environment: [String: String]
    let terminal: Terminal
    let addOns: @Sendable (Running) throws -> [any Service]

    /// Creates the application for a validated configuration. `addOns` adds services that
    /// start last (and stop first), given the running pieces.
    public init(
        configuration: Configuration, environment: [String: String], terminal: Terminal,
        addOns: @escaping @Sendable (Running) throws -> [any Service] = { _ in [] }
    ) {
        self.configuration = configuration
        self.environment = environment
        self.terminal = terminal
        self.addOns = addOns
    }

    /// Runs until a signal arrives or a service fails.
    public func run() async throws {
        // Watch SIGTERM/SIGINT from the first moment: a signal during start-up (initdb, migrations)
        // must still stop what was started, not kill the process and leave Postgres behind.
        let signals = SignalWatcher(signals: [SIGTERM, SIGINT])
        let stopRequested = signals.triggered
        defer { signals.cancel() }

        let logger = Logger(label: "scorecast", level: configuration.logLevel, format: configuration.logFormat)
        let migrator = Migrator(files: try SchemaFolder.read(try SchemaFolder.locate(environment: environment)), logger: logger)
        // Every resource joins `services` the moment it is started, in start order; whatever
        // fails later, what was started is stopped in reverse order (nothing leaks on a failed
        // start: the APNs clients and the simulator when the HTTP port is taken, for instance).
        var services: [any Service] = []
        do {
            let database: DatabaseRuntime
            do {
                database = try await DatabaseRuntime.open(configuration, logger: logger)
            } catch let error as PostgresError {
                throw CommandError(.databaseUnavailable, "database unavailable: \(error.message)")
            }
            services.append(ReleaseOnShutdown("database") { await database.shutdown() })
            if configuration.autoMigrate && !stopRequested.isTriggered {
                try await migrator.migrate(database.pool)
            }
            var router = Router()
            HealthEndpoints(pool: database.pool, migrator: migrator).register(on: &router)
            EventsEndpoint(pool: database.pool, configuration: configuration, logger: logger).register(on: &router)
            ChannelsEndpoint(pool: database.pool).register(on: &router)
            let metricsRegistry = MetricsRegistry()
            let metrics = try ScorecastMetrics(registry: metricsRegistry)
            StatsEndpoints(
                query: StatsQuery(pool: database.pool, configuration: configuration), registry: metricsRegistry,
                refresher: try MetricsRefresher(pool: database.pool, metrics: metrics, registry: metricsRegistry)
            ).register(on: &router)

            let apns = try await APNsRuntime.start(configuration, pool: database.pool, logger: logger)
            services.append(ReleaseOnShutdown("apns-clients") { await apns.shutdown() })
            if let simulator = apns.simulator { services.append(simulator) }
            var httpBaseURL: URL?
            if configuration.roles.contains(.api) {
                let http = HTTPServer(
                    configuration: HTTPServerConfiguration(
                        host: configuration.httpHost, port: configuration.httpPort,
                        maxBodyBytes: configuration.httpMaxBodyBytes,
                        connectionTimeoutSeconds: Int(configuration.httpReadTimeout.components.seconds),
                        threadCount: configuration.httpThreads),
                    router: router, logger: logger.named("http"))
                try http.start()
                services.append(http)
                logger.info("HTTP API listening", ["address": "http://\(configuration.httpHost):\(http.port)"])
                httpBaseURL = URL(string: "http://\(configuration.httpHost):\(http.port)")
            }
            // One key store for the process: a key reloaded after APNs refused it is reloaded
            // for channel management too.
            let credentials = CredentialStore()
            if configuration.roles.contains(.worker) {
                services.append(WorkerPool(
                    pool: database.pool, apns: apns.clients, credentials: credentials,
                    settings: WorkerSettings(configuration: configuration), logger: logger))
            }
            if configuration.roles.contains(.poller) {
                let registry = ChannelRegistry(
                    pool: database.pool, apns: apns.clients, credentials: credentials, channelLimit: configuration.channelLimit, logger: logger)
                services.append(Poller.standard(configuration: configuration, pool: database.pool, registry: registry, metrics: metrics, logger: logger))
            }
            services += try addOns(Running(
                configuration: configuration, pool: database.pool, apns: apns, httpBaseURL: httpBaseURL,
                terminal: terminal, logger: logger))
        } catch {
            await ServiceGroup.stop(services, gracePeriod: configuration.shutdownGrace, logger: logger)
            throw error
        }
        if stopRequested.isTriggered {
            logger.info("stop requested during start-up")
            await ServiceGroup.stop(services, gracePeriod: configuration.shutdownGrace, logger: logger)
        } else {
            let group = ServiceGroup(services: services, signals: [], gracePeriod: configuration.shutdownGrace, logger: logger)
            try await group.run(until: stopRequested)
        }
        logger.info("stopped")
    }
}
