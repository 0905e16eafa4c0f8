import ScorecastCrypto
import Foundation
import ScorecastLogging
import Postgres
import Synchronization
import Testing
import TestSupport
@testable import Migrations

@Suite struct MigrationPlanTests {
    func file(_ name: String, _ sql: String = "SELECT 1;") throws -> MigrationFile {
        try MigrationFile(name: name, sql: sql, checksum: SHA256.hexDigest(Array(sql.utf8)))
    }

    @Test func pendingFilesApplyInNumberOrder() throws {
        let plan = try MigrationPlan(files: [file("0002_b.sql"), file("0001_a.sql")], applied: [])
        #expect(plan.pending.map(\.name) == ["0001_a.sql", "0002_b.sql"])
    }

    @Test func aChangedAppliedFileIsRefused() throws {
        let applied = AppliedMigration(name: "0001_a.sql", checksum: SHA256.hexDigest(Array("SELECT 1;".utf8)), appliedAt: Date())
        #expect(throws: MigrationError.changedAfterApply("0001_a.sql")) {
            try MigrationPlan(files: [file("0001_a.sql", "SELECT 2;")], applied: [applied])
        }
    }

    @Test func badNamesAndDuplicateNumbersAreRefused() throws {
        #expect(throws: MigrationError.badFileName("initial.sql")) { try file("initial.sql") }
        #expect(throws: MigrationError.duplicateNumber(1, "0001_a.sql", "0001_b.sql")) {
            try MigrationPlan(files: [file("0001_a.sql"), file("0001_b.sql")], applied: [])
        }
    }
}

@Suite struct MigratorTests {
    let logger = Logger(label: "test", level: .warning)

    func repositorySchema() throws -> [MigrationFile] {
        try SchemaFolder.read(ScorecastProcess.schemaFolder)
    }

    @Test func freshThenRerunIsANoOp() async throws {
        let pool = try await TestDatabase.shared().makePool()
        let migrator = Migrator(files: try repositorySchema(), logger: logger)
        let first = try await migrator.migrate(pool)
        #expect(first == (try repositorySchema()).map(\.name))
        #expect(try await migrator.migrate(pool).isEmpty)
        #expect(try await migrator.plan(pool).isComplete)
        let tables = try await pool.query("SELECT count(*)::int AS n FROM information_schema.tables WHERE table_schema = current_schema() AND table_name IN ('apps','games','channels','outbox','deliveries')")
        #expect(try tables[0].decode("n", as: Int.self) == 5)
        await pool.close()
    }

    @Test func aMigrationWaitingLongerThanTheStatementTimeoutStillApplies() async throws {
        // The service's pools carry a statement timeout; a migrator that waits for another's
        // lock (or migrates a large table) longer than that must not be cancelled (57014
        // stopped starts and end-to-end tests on a loaded machine).
        var configuration = try await TestDatabase.shared().makeSchema()
        configuration.statementTimeout = .milliseconds(300)
        // Named, so that the wait below sees this migrator's lock wait and no other test's.
        let name = "migrator-" + UUID().uuidString.prefix(8).lowercased()
        configuration.applicationName = name
        let pool = PostgresPool(configuration: configuration, maxConnections: 1, logger: logger)
        // The lock is per schema: the holder takes it in the same schema, without the timeout.
        var holding = configuration
        holding.statementTimeout = nil
        holding.applicationName = name + "-holder"
        let holder = PostgresPool(configuration: holding, maxConnections: 1, logger: logger)
        let migrator = Migrator(files: try repositorySchema(), logger: logger)
        let applied = try await holder.withConnection { connection in
            try await Migrator.lock(connection)
            let finished = Mutex(false)
            let migrating = Task {
                defer { finished.withLock { $0 = true } }
                return try await migrator.migrate(pool)
            }
            // Hold the lock until the migrator has waited on it for longer than its timeout.
            // Should it end without waiting (it failed), its error is the test's answer; the
            // deadline only turns a hang into a failure.
            let deadline = ContinuousClock.now + .seconds(120)
            while try await connection.query("""
                SELECT count(*)::int AS waiting FROM pg_locks JOIN pg_stat_activity USING (pid)
                WHERE locktype = 'advisory' AND NOT granted AND application_name = \(name)
                """)[0].decode("waiting", as: Int.self) == 0 {
                if finished.withLock({ $0 }) { break }
                try #require(ContinuousClock.now < deadline, "the migrator never waited for the lock")
                try await Task.sleep(for: .milliseconds(20))
            }
            try await Task.sleep(for: .milliseconds(900))
            try await Migrator.unlock(connection)
            return try await migrating.value
        }
        #expect(applied == (try repositorySchema()).map(\.name))
        // The connection goes back to the pool with its timeout as it was.
        let timeout: String = try await pool.query("SELECT current_setting('statement_timeout') AS value")[0].decode("value")
        #expect(timeout == "300ms")
        await pool.close()
        await holder.close()
    }

    @Test func twoConcurrentMigratorsApplyOnce() async throws {
        let configuration = try await TestDatabase.shared().makeSchema()
        let poolA = PostgresPool(configuration: configuration, maxConnections: 2, logger: logger)
        let poolB = PostgresPool(configuration: configuration, maxConnections: 2, logger: logger)
        let migrator = Migrator(files: try repositorySchema(), logger: logger)
        async let a = migrator.migrate(poolA)
        async let b = migrator.migrate(poolB)
        let (appliedA, appliedB) = try await (a, b)
        #expect(appliedA.count + appliedB.count == (try repositorySchema()).count)
        let rows = try await poolA.query("SELECT count(*)::int AS n FROM schema_migrations")
        #expect(try rows[0].decode("n", as: Int.self) == (try repositorySchema()).count)
        await poolA.close()
        await poolB.close()
    }

    /// The lock is per schema: a migration held up in one schema does not stop another's (the
    /// tests' schemas queued behind one database-wide lock for minutes on a loaded machine).
    @Test func aMigrationHeldInOneSchemaDoesNotBlockAnother() async throws {
        let held = PostgresPool(configuration: try await TestDatabase.shared().makeSchema(), maxConnections: 1, logger: logger)
        let other = PostgresPool(configuration: try await TestDatabase.shared().makeSchema(), maxConnections: 1, logger: logger)
        let migrator = Migrator(files: try repositorySchema(), logger: logger)
        try await held.withConnection { connection in
            try await Migrator.lock(connection)
            // Only a hang ends here: with one lock for the database the migration would wait
            // for the unlock below, which comes after it.
            let applied = try await withDeadline("migrating a schema while another's lock is held") {
                try await migrator.migrate(other)
            }
            #expect(applied == (try repositorySchema()).map(\.name))
            try await Migrator.unlock(connection)
        }
        #expect(try await migrator.migrate(held) == (try repositorySchema()).map(\.name))
        await held.close()
        await other.close()
    }

    @Test func aFileChangedAfterApplyIsRefusedAndNothingRuns() async throws {
        let pool = try await TestDatabase.shared().makePool()
        let original = try MigrationFile(name: "0001_t.sql", sql: "CREATE TABLE t (x int);", checksum: "aaa")
        try await Migrator(files: [original], logger: logger).migrate(pool)
        let edited = try MigrationFile(name: "0001_t.sql", sql: "CREATE TABLE t (x int, y int);", checksum: "bbb")
        let next = try MigrationFile(name: "0002_u.sql", sql: "CREATE TABLE u (x int);", checksum: "ccc")
        await #expect(throws: MigrationError.changedAfterApply("0001_t.sql")) {
            try await Migrator(files: [edited, next], logger: logger).migrate(pool)
        }
        let u = try await pool.query("SELECT to_regclass('u') IS NULL AS missing")
        #expect(try u[0].decode("missing", as: Bool.self))
        await pool.close()
    }

    @Test func aFailingFileRollsBackWhole() async throws {
        let pool = try await TestDatabase.shared().makePool()
        let broken = try MigrationFile(name: "0001_x.sql", sql: "CREATE TABLE x (a int); SELECT * FROM no_such_table;", checksum: "d")
        await #expect(throws: MigrationError.self) { try await Migrator(files: [broken], logger: logger).migrate(pool) }
        let rows = try await pool.query("SELECT to_regclass('x') IS NULL AS missing")
        #expect(try rows[0].decode("missing", as: Bool.self))
        await pool.close()
    }
}
