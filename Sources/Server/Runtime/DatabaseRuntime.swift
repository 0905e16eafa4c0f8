import Foundation
import ScorecastLogging
import Postgres
import ServiceBase

/// The database a process uses: a pool on the configured URL, or on the embedded cluster it
/// started (and stops again on `shutdown`).
///
/// Behind a pooler in transaction mode (`SCORECAST_DATABASE_POOLER=transaction`) a second,
/// small pool on `SCORECAST_DATABASE_DIRECT_URL` serves what needs a session of its own.
package final class DatabaseRuntime: Sendable {
    /// The connection pool.
    package let pool: PostgresPool
    /// For work that needs a session of its own: LISTEN, the poller's leader lock, migrations
    /// (session advisory locks, `set_config(…, false)`). The main pool unless a direct URL is set.
    package let sessionPool: PostgresPool
    /// The embedded cluster this process started, if any.
    package let embedded: EmbeddedPostgres?
    /// How the pool connects (no password in its description).
    package let configuration: PostgresConfiguration

    private init(pool: PostgresPool, sessionPool: PostgresPool, embedded: EmbeddedPostgres?, configuration: PostgresConfiguration) {
        self.pool = pool
        self.sessionPool = sessionPool
        self.embedded = embedded
        self.configuration = configuration
    }

    /// How much longer than the statement timeout the client waits for an answer: enough for a
    /// live server's own timeout error to arrive first.
    static let responseGrace = Duration.seconds(1)

    /// Connects as `configuration` says; starts the embedded cluster when no URL is set.
    /// Connection failures become exit code 5 at the CLI.
    package static func open(_ configuration: Configuration, logger: Logger, applicationName: String = "scorecast") async throws -> DatabaseRuntime {
        var postgres: PostgresConfiguration
        var embedded: EmbeddedPostgres?
        switch configuration.database {
        case .external(let url):
            postgres = try PostgresConfiguration(connectionString: url)
        case .embedded:
            let cluster = EmbeddedPostgres(stateDirectory: configuration.stateDirectory, settings: configuration.embeddedPostgresSettings, logger: logger)
            postgres = try await cluster.start()
            embedded = cluster
            logger.info("embedded Postgres ready", ["port": postgres.port.map(String.init) ?? "?"])
        }
        postgres.connectTimeout = configuration.databaseConnectTimeout
        postgres.statementTimeout = configuration.databaseStatementTimeout
        // The statement timeout bounds every wait on the database, on the client's side too: a
        // stalled server never answers (nor enforces its own timeout), so the client gives up a
        // little after the server would have, and waits no longer for a pooled connection.
        // HTTP requests wait far less (`RequestDatabaseDeadline`).
        postgres.responseTimeout = configuration.databaseStatementTimeout + Self.responseGrace
        postgres.applicationName = applicationName
        var session = postgres
        if let directURL = configuration.databaseDirectURL {
            session = try PostgresConfiguration(connectionString: directURL)
            session.connectTimeout = postgres.connectTimeout
            session.statementTimeout = postgres.statementTimeout
            session.responseTimeout = postgres.responseTimeout
            session.applicationName = applicationName
        }
        if configuration.databasePooler == .transaction {
            postgres.statementCacheCapacity = 0
            postgres.sendsSessionSettings = false
        }
        let pool = PostgresPool(
            configuration: postgres, maxConnections: configuration.databasePoolSize,
            leaseTimeout: configuration.databaseStatementTimeout, logger: logger)
        // Migrations lease one connection; the listener and the leader lock open their own.
        let sessionPool = configuration.databaseDirectURL == nil
            ? pool
            : PostgresPool(configuration: session, maxConnections: 2, leaseTimeout: configuration.databaseStatementTimeout, logger: logger)
        let runtime = DatabaseRuntime(pool: pool, sessionPool: sessionPool, embedded: embedded, configuration: postgres)
        do {
            _ = try await pool.query("SELECT 1")
            if sessionPool !== pool { _ = try await sessionPool.query("SELECT 1") }
            if configuration.databasePooler == .transaction { try await PoolerSessionCheck.verify(pool, statementTimeout: configuration.databaseStatementTimeout, logger: logger) }
        } catch let error as PostgresError {
            await runtime.shutdown()
            throw Self.explained(error)
        } catch {
            await runtime.shutdown()
            throw error
        }
        return runtime
    }

    /// PgBouncer refuses the startup `options` scorecast sends unless told it is a
    /// transaction pooler: say which setting fixes it.
    static func explained(_ error: PostgresError) -> PostgresError {
        guard error.message.contains("unsupported startup parameter") else { return error }
        var explained = error
        explained.message += " (behind PgBouncer in transaction mode set SCORECAST_DATABASE_POOLER=transaction, "
            + "and SCORECAST_DATABASE_DIRECT_URL to Postgres itself)"
        return explained
    }

    /// Closes the pools and stops the embedded cluster if this process started it.
    package func shutdown() async {
        if sessionPool !== pool { await sessionPool.close() }
        await pool.close()
        embedded?.stop()
    }
}
