import Demo
import Postgres
import ScorecastLogging
import Server
import ServiceBase

/// The database and APNs for one command, opened and closed around its body.
extension CommandContext {
    /// Connects to APNs for one command (see `APNsRuntime.connect`) and shuts the clients down
    /// afterwards, whatever happens.
    package func withAPNs<T: Sendable>(
        _ configuration: Configuration, logger: Logger, _ body: (APNsRuntime) async throws -> T
    ) async throws -> T {
        let runtime = try await APNsRuntime.connect(configuration, builtIn: BuiltInSimulatorAPNs(), logger: logger)
        do {
            let result = try await body(runtime)
            await runtime.shutdown()
            return result
        } catch {
            await runtime.shutdown()
            throw error
        }
    }

    /// Opens the database for one command and closes it (and any embedded cluster this process
    /// started) afterwards, whatever happens.
    package func withDatabase<T: Sendable>(
        _ configuration: Configuration, logger: Logger, _ body: (DatabaseRuntime) async throws -> T
    ) async throws -> T {
        let database: DatabaseRuntime
        do {
            database = try await DatabaseRuntime.open(configuration, logger: logger, applicationName: "scorecast-cli")
        } catch let error as PostgresError {
            throw CommandError(.databaseUnavailable, "database unavailable: \(error.message)")
        }
        do {
            let result = try await body(database)
            await database.shutdown()
            return result
        } catch {
            await database.shutdown()
            throw error
        }
    }
}
