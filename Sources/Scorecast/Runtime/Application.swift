import Foundation
import HTTPServer
import Lifecycle
import Logging
import Postgres

/// The running service: opens the database (embedded or not), migrates, starts the roles
/// as services of one group, and tears everything down in reverse order on SIGTERM/SIGINT.
public struct Application: Sendable {
    let configuration: Configuration
    let environment: [String: String]
    let terminal: Terminal

    /// Creates the application for a validated configuration.
    public init(configuration: Configuration, environment: [String: String], terminal: Terminal) {
        self.configuration = configuration
        self.environment = environment
        self.terminal = terminal
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
        let database: DatabaseRuntime
        do {
            database = try await DatabaseRuntime.open(configuration, logger: logger)
        } catch let error as PostgresError {
            throw CommandError(.databaseUnavailable, "database unavailable: \(error.message)")
        }
        do {
            if configuration.autoMigrate && !stopRequested.isTriggered {
                try await migrator.migrate(database.pool)
            }
            var router = Router()
            HealthEndpoints(pool: database.pool, migrator: migrator).register(on: &router)
            EventsEndpoint(pool: database.pool, configuration: configuration, logger: logger).register(on: &router)
            ChannelsEndpoint(pool: database.pool).register(on: &router)

            let apns = try await APNsRuntime.start(configuration, pool: database.pool, logger: logger)
            var services: [any Service] = []
            if let simulator = apns.simulator { services.append(simulator) }
            if configuration.roles.contains(.api) {
                let http = HTTPServer(
                    configuration: HTTPServerConfiguration(
                        host: configuration.httpHost, port: configuration.httpPort,
                        maxBodyBytes: configuration.httpMaxBodyBytes,
                        connectionTimeoutSeconds: Int(configuration.httpReadTimeout.components.seconds),
                        threadCount: configuration.httpThreads),
                    router: router, logger: logger.named("http"))
                try http.start()
                logger.info("HTTP API listening", ["address": "http://\(configuration.httpHost):\(http.port)"])
                services.append(http)
            }
            if stopRequested.isTriggered {
                logger.info("stop requested during start-up")
            } else {
                let group = ServiceGroup(services: services, signals: [], gracePeriod: configuration.shutdownGrace, logger: logger)
                do {
                    try await group.run(until: stopRequested)
                } catch {
                    await apns.shutdown()
                    throw error
                }
            }
            await apns.shutdown()
        } catch {
            await database.shutdown()
            throw error
        }
        await database.shutdown()
        logger.info("stopped")
    }
}
