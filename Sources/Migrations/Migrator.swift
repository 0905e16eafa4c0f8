import Foundation
import ScorecastLogging
import Postgres

/// Applies pending migrations: in order, each in its own transaction, under a Postgres advisory
/// lock so that two migrators at once are safe (the second waits, then finds nothing to do).
public struct Migrator: Sendable {
    /// An arbitrary constant naming scorecast's migration locks ("scor" in ASCII).
    static let advisoryLockClass = 0x7363_6f72

    /// The migration lock is one per schema (the `search_path` the migrations run in): migrators
    /// of one schema take turns, while other schemas of the database (another deployment, the
    /// tests' schemas) migrate at the same time instead of queueing behind one lock.
    static func lock(_ connection: PostgresConnection) async throws {
        try await connection.execute("SELECT pg_advisory_lock((\(advisoryLockClass))::int, hashtext(current_setting('search_path')))")
    }

    /// Releases `lock`.
    static func unlock(_ connection: PostgresConnection) async throws {
        try await connection.execute("SELECT pg_advisory_unlock((\(advisoryLockClass))::int, hashtext(current_setting('search_path')))")
    }

    private let files: [MigrationFile]
    private let logger: Logger

    /// Creates a migrator for `files` (normally `SchemaFolder.read`).
    public init(files: [MigrationFile], logger: Logger) {
        self.files = files
        self.logger = logger.named("migrate")
    }

    /// What is applied and what is pending, without changing anything.
    public func plan(_ pool: PostgresPool) async throws -> MigrationPlan {
        try await pool.withConnection { connection in
            try await MigrationPlan(files: files, applied: appliedMigrations(connection, tableMayBeMissing: true))
        }
    }

    /// Applies what is pending; returns the names applied (empty when up to date).
    @discardableResult
    public func migrate(_ pool: PostgresPool) async throws -> [String] {
        // Nor a client-side one (`PostgresDeadline.lifted`), for the same reasons.
        try await PostgresDeadline.lifted { try await migrateUnbounded(pool) }
    }

    private func migrateUnbounded(_ pool: PostgresPool) async throws -> [String] {
        try await pool.withConnection { connection in
            // No statement timeout while migrating: the wait for another migrator's lock and a
            // migration over a large table may both outlast the service's request timeout
            // (SCORECAST_DATABASE_STATEMENT_TIMEOUT_MS), and a cancelled migration stops the start.
            let timeout: String = try await connection.query("SELECT current_setting('statement_timeout') AS value")[0].decode("value")
            try await connection.execute("SELECT set_config('statement_timeout', '0', false)")
            do {
                try await Self.lock(connection)
                do {
                    let applied = try await migrateLocked(connection)
                    try await Self.unlock(connection)
                    try await connection.execute("SELECT set_config('statement_timeout', \(timeout), false)")
                    return applied
                } catch {
                    try? await Self.unlock(connection)
                    throw error
                }
            } catch {
                _ = try? await connection.execute("SELECT set_config('statement_timeout', \(timeout), false)")
                throw error
            }
        }
    }

    private func migrateLocked(_ connection: PostgresConnection) async throws -> [String] {
        try await connection.execute("""
            CREATE TABLE IF NOT EXISTS schema_migrations (
                name        text PRIMARY KEY,
                checksum    text NOT NULL,
                applied_at  timestamptz NOT NULL DEFAULT now()
            )
            """)
        let plan = try MigrationPlan(files: files, applied: try await appliedMigrations(connection, tableMayBeMissing: false))
        var applied: [String] = []
        for file in plan.pending {
            logger.info("applying migration", ["name": file.name])
            try await connection.execute("BEGIN")
            do {
                try await connection.executeScript(unsafeSQL: file.sql)
                try await connection.execute(
                    "INSERT INTO schema_migrations (name, checksum) VALUES (\(file.name), \(file.checksum))")
                try await connection.execute("COMMIT")
            } catch {
                _ = try? await connection.execute("ROLLBACK")
                let reason = (error as? PostgresError).map { "\($0.message) (SQLSTATE \($0.sqlState ?? "none"))" } ?? "\(error)"
                throw MigrationError.failed(file.name, reason)
            }
            applied.append(file.name)
        }
        if applied.isEmpty { logger.info("schema is up to date", ["applied": "\(plan.applied.count)"]) }
        return applied
    }

    private func appliedMigrations(_ connection: PostgresConnection, tableMayBeMissing: Bool) async throws -> [AppliedMigration] {
        if tableMayBeMissing {
            let exists = try await connection.query("SELECT to_regclass('schema_migrations') IS NOT NULL AS present")
            guard try exists.first?.decode("present", as: Bool.self) == true else { return [] }
        }
        return try await connection.query("SELECT name, checksum, applied_at FROM schema_migrations ORDER BY name").map { row in
            AppliedMigration(
                name: try row.decode("name"), checksum: try row.decode("checksum"), appliedAt: try row.decode("applied_at"))
        }
    }
}
