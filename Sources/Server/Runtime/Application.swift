import Clocks
import Delivery
import Devices
import Foundation
import HTTPServer
import Lifecycle
import Migrations
import Postgres
import PrometheusMetrics
import Registry
import ScorecastCrypto
import ScorecastLogging
import ServiceBase

/// The running service: opens the database (embedded or not), migrates, starts the roles
/// as services of one group — the pool, the APNs clients, the simulator and the HTTP server
/// included — and tears everything down in reverse order on SIGTERM/SIGINT or a failure.
package struct Application: Sendable {
    /// What extra services (the demo's feed replay) get to work with once everything is up.
    package struct Running: Sendable {
        package let configuration: Configuration
        package let pool: PostgresPool
        package let apns: APNsRuntime
        /// The HTTP API's address, when the `api` role runs.
        package let httpBaseURL: URL?
        package let terminal: Terminal
        package let logger: Logger
    }

    let configuration: Configuration
    let environment: [String: String]
    let terminal: Terminal
    let builtInAPNs: any BuiltInAPNs
    let addOns: @Sendable (Running) throws -> [any Service]

    /// Creates the application for a validated configuration. `builtInAPNs` is started when no
    /// APNs hosts are configured; `addOns` adds services that start last (and stop first), given
    /// the running pieces.
    package init(
        configuration: Configuration, environment: [String: String], terminal: Terminal, builtInAPNs: any BuiltInAPNs,
        addOns: @escaping @Sendable (Running) throws -> [any Service] = { _ in [] }
    ) {
        self.configuration = configuration
        self.environment = environment
        self.terminal = terminal
        self.builtInAPNs = builtInAPNs
        self.addOns = addOns
    }

    /// Runs until a signal arrives or a service fails.
    package func run() async throws {
        // Watch SIGTERM/SIGINT from the first moment: a signal during start-up (initdb, migrations)
        // must still stop what was started, not kill the process and leave Postgres behind.
        let signals = SignalWatcher(signals: [SIGTERM, SIGINT])
        let stopRequested = signals.triggered
        defer { signals.cancel() }

        let logger = Logger(label: "scorecast", level: configuration.logLevel, format: configuration.logFormat)
        if let problem = OpsAccess.exposureProblem(
            host: configuration.httpHost, token: configuration.opsToken, opsPublic: configuration.opsPublic) {
            throw RuntimeError(.invalidSettings, problem)
        }
        let migrator = Migrator(files: try SchemaFolder.migrations(environment: environment), logger: logger)
        // Every resource joins `services` the moment it is started, in start order; whatever
        // fails later, what was started is stopped in reverse order (nothing leaks on a failed
        // start: the APNs clients and the simulator when the HTTP port is taken, for instance).
        var services: [any Service] = []
        do {
            let database: DatabaseRuntime
            do {
                database = try await DatabaseRuntime.open(configuration, logger: logger)
            } catch let error as PostgresError {
                throw RuntimeError(.databaseUnavailable, "database unavailable: \(error.message)")
            }
            services.append(ReleaseOnShutdown("database") { await database.shutdown() })
            // Stopped before the database (reverse order), so a shutdown is never taken for a crash.
            let supervisor = database.embedded.map {
                EmbeddedPostgresSupervisor(server: $0, recoveryLimit: configuration.embeddedPostgresRecoveryLimit, logger: logger)
            }
            if let supervisor { services.append(supervisor) }
            if configuration.autoMigrate && !stopRequested.isTriggered {
                try await migrator.migrate(database.sessionPool)
            }
            // On the schema this binary knows only: a database left behind (no auto-migrate)
            // keeps its secrets as they are until it is migrated.
            if try await migrator.plan(database.pool).isComplete {
                try await Self.sealSigningSecrets(database.pool, keyring: configuration.secretsKeyring, logger: logger)
            }
            let metricsRegistry = MetricsRegistry()
            let metrics = try ScorecastMetrics(registry: metricsRegistry)
            let deviceMetrics = try DeviceMetrics(registry: metricsRegistry)
            // One clock for every role, so that what they decide agrees on the time.
            let clock: any ServiceClock = SystemServiceClock()
            let apns = try await APNsRuntime.start(
                configuration, pool: database.pool, builtIn: builtInAPNs, logger: logger,
                connectionObserver: APNsConnectionGauge(metrics.apnsConnections), clock: clock)
            services.append(ReleaseOnShutdown("apns-clients") { await apns.shutdown() })
            if let simulator = apns.simulator { services.append(simulator) }
            // One key store for the process: a key reloaded after APNs refused it is reloaded
            // for channel management too.
            let credentials = CredentialStore()
            let poller = configuration.roles.contains(.poller) ? Poller.standard(
                configuration: configuration, pool: database.pool, sessionPool: database.sessionPool,
                registry: ChannelRegistry(
                    pool: database.pool, apns: apns.clients, credentials: credentials, channelLimit: configuration.channelLimit,
                    staleness: IngestSettings(configuration: configuration).staleness, logger: logger, clock: clock),
                metrics: metrics, logger: logger, clock: clock) : nil

            // Every process serves /healthz, /readyz and /metrics: on the API's port with the
            // api role, on the ops port otherwise. The database-wide gauges come from the
            // poller's leader alone, so that summing them across processes stays right.
            let servesAPI = configuration.roles.contains(.api)
            let sends = configuration.roles.contains(.worker)
            // A process that ingests and sends hands its goals to its own workers.
            let workerSettings = WorkerSettings(configuration: configuration)
            let handOff = servesAPI && sends && configuration.alertHandOff
                ? AlertHandOff(
                    ownerPrefix: WorkerIdentity.makeOwnerPrefix(), lease: workerSettings.leaseDuration,
                    capacity: workerSettings.claimBatchSize)
                : nil
            let isLeader = { @Sendable in poller?.isLeader ?? false }
            let unhealthyReason = { @Sendable in supervisor?.unhealthyReason() }
            let router = servesAPI
                ? try APIRoutes.router(
                    configuration: configuration, pool: database.pool, migrator: migrator, registry: metricsRegistry, metrics: metrics,
                    exportsDatabaseGauges: isLeader, unhealthyReason: unhealthyReason, logger: logger, clock: clock, handOff: handOff)
                : try APIRoutes.opsRouter(
                    configuration: configuration, pool: database.pool, migrator: migrator, registry: metricsRegistry, metrics: metrics,
                    exportsDatabaseGauges: isLeader, unhealthyReason: unhealthyReason, logger: logger, clock: clock)
            let http = try startListener(
                router: router, port: servesAPI ? configuration.httpPort : configuration.opsPort,
                portSetting: servesAPI ? .httpPort : .opsPort, logger: logger)
            services.append(http)
            let address = "http://\(configuration.httpHost):\(http.port)"
            logger.info(servesAPI ? "HTTP API listening" : "ops listener (/healthz, /readyz, /metrics) listening", ["address": address])
            let httpBaseURL = servesAPI ? URL(string: address) : nil
            if sends {
                services.append(WorkerPool(
                    pool: database.pool, notifications: database.sessionPool, apns: apns.clients, credentials: credentials,
                    settings: workerSettings, logger: logger, metrics: metrics, handOff: handOff, clock: clock))
                services.append(DeviceFanOut(
                    pool: database.pool, apns: apns.clients, credentials: credentials, configuration: configuration,
                    metrics: deviceMetrics, logger: logger, clock: clock))
            }
            if let poller { services.append(poller) }
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

    /// Starts the process's HTTP listener (the API, or the ops listener) on `port`.
    private func startListener(router: Router, port: Int, portSetting: Setting, logger: Logger) throws -> HTTPServer {
        let http = HTTPServer(
            configuration: HTTPServerConfiguration(
                host: configuration.httpHost, port: port,
                maxBodyBytes: configuration.httpMaxBodyBytes,
                connectionTimeoutSeconds: Int(configuration.httpReadTimeout.components.seconds),
                threadCount: configuration.httpThreads,
                maxConnections: configuration.httpMaxConnections,
                maxConnectionsPerAddress: configuration.httpMaxConnectionsPerAddress,
                maxHeaderBytes: configuration.httpMaxHeaderBytes,
                headerTimeoutSeconds: Int(configuration.httpHeaderTimeout.components.seconds),
                bodyTimeoutSeconds: Int(configuration.httpBodyTimeout.components.seconds),
                minimumBodyBytesPerSecond: configuration.httpMinBodyBytesPerSecond),
            router: router, logger: logger.named("http"))
        do {
            try http.start()
        } catch let error as HTTPServerError where error.code == .startFailed {
            throw RuntimeError(.failure, Self.listenFailure(error, host: configuration.httpHost, port: port, setting: portSetting.name))
        }
        return http
    }

    /// Seals the feed signing secrets still in clear (or sealed with a previous key) with the
    /// current key; a secret no configured key opens stops the start with the key's name.
    static func sealSigningSecrets(_ pool: PostgresPool, keyring: SealingKeyring?, logger: Logger) async throws {
        let report: APIKeyStore.SealingReport
        do {
            report = try await APIKeyStore(pool: pool, keyring: keyring).sealStoredSecrets()
        } catch let error as SigningSecretError {
            throw RuntimeError(.invalidSettings, error.description)
        }
        if report.sealed + report.resealed > 0 {
            logger.notice("feed signing secrets sealed with the current key", [
                "key id": keyring?.currentKeyID ?? "", "were in clear": "\(report.sealed)", "were sealed with a previous key": "\(report.resealed)",
            ])
        }
        if report.inClear > 0 {
            logger.warning("feed signing secrets are stored in clear: set SCORECAST_SECRETS_KEY_FILE to encrypt them", ["keys": "\(report.inClear)"])
        }
    }

    /// What to tell an admin whose HTTP port could not be opened (usually: it is taken).
    static func listenFailure(_ error: HTTPServerError, host: String, port: Int, setting: String = Setting.httpPort.name) -> String {
        "scorecast cannot listen on \(host):\(port) (\(error.message)): is another scorecast, or another program, "
            + "using port \(port)? Stop it, or set \(setting) to a free port (0 picks one)."
    }
}
