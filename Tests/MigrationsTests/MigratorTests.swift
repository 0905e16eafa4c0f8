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
        try MigrationFile(name: name, sql: sql)
    }

    @Test func pendingFilesApplyInNumberOrder() throws {
        let plan = try MigrationPlan(files: [file("0002_b.sql"), file("0001_a.sql")], applied: [])
        #expect(plan.pending.map(\.name) == ["0001_a.sql", "0002_b.sql"])
    }

    @Test func aChangedAppliedFileIsRefused() throws {
        let applied = AppliedMigration(name: "0001_a.sql", checksum: try file("0001_a.sql").checksum, appliedAt: Date())
        #expect(throws: MigrationError.changedAfterApply("0001_a.sql")) {
            try MigrationPlan(files: [file("0001_a.sql", "SELECT 2;")], applied: [applied])
        }
    }

    @Test func theChecksumLeavesCommentLinesOut() throws {
        let sql = "-- why\nCREATE TABLE t (x int); -- kept\n  -- indented\n\nSELECT 1;"
        #expect(MigrationFile.statements(of: sql) == "CREATE TABLE t (x int); -- kept\n\nSELECT 1;")
        let corrected = try file("0001_a.sql", sql.replacingOccurrences(of: "-- why", with: "-- the reason, corrected"))
        #expect(corrected.checksum == (try file("0001_a.sql", sql)).checksum)
        #expect(try file("0001_a.sql", sql.replacingOccurrences(of: "x int", with: "x bigint")).checksum != corrected.checksum)
    }

    @Test func aCommentCorrectedAfterApplyIsAccepted() throws {
        let applied = AppliedMigration(name: "0001_a.sql", checksum: try file("0001_a.sql", "-- one\nSELECT 1;").checksum, appliedAt: Date())
        let plan = try MigrationPlan(files: [file("0001_a.sql", "-- two\nSELECT 1;")], applied: [applied])
        #expect(plan.applied.map(\.name) == ["0001_a.sql"])
        #expect(plan.pending.isEmpty)
    }

    /// Migrators before comments left the checksum recorded the whole text's SHA-256.
    @Test func aWholeTextRecordIsAccepted() throws {
        let sql = "-- why\nSELECT 1;"
        let current = try file("0001_a.sql", sql)
        let wholeText = SHA256.hexDigest(Array(sql.utf8))
        let plan = try MigrationPlan(files: [current], applied: [AppliedMigration(name: "0001_a.sql", checksum: wholeText, appliedAt: Date())])
        #expect(plan.applied.map(\.name) == ["0001_a.sql"])
        #expect(plan.pending.isEmpty)
        // A whole-text record of another text is no former sum: its comment changed with no listing.
        let other = AppliedMigration(name: "0001_a.sql", checksum: SHA256.hexDigest(Array("-- how\nSELECT 1;".utf8)), appliedAt: Date())
        #expect(throws: MigrationError.changedAfterApply("0001_a.sql")) { try MigrationPlan(files: [current], applied: [other]) }
    }

    /// Each listed former sum is its file's former text, which differs from today's in comments only.
    @Test func everyFormerChecksumIsItsFormerTextWithTheSameStatements() throws {
        let former = try MigratorTests.formerTexts()
        #expect(Set(former.keys) == Set(FormerChecksums.wholeText.keys))
        let current = Dictionary(uniqueKeysWithValues: try SchemaFolder.read(ScorecastProcess.schemaFolder).map { ($0.name, $0) })
        for (name, sql) in former {
            #expect(SHA256.hexDigest(Array(sql.utf8)) == FormerChecksums.wholeText[name], "\(name)")
            #expect(try file(name, sql).checksum == current[name]?.checksum, "\(name)")
            #expect(sql != current[name]?.sql, "\(name)")
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

    /// The applied migrations whose comments were corrected, as they were before: name → text.
    static func formerTexts() throws -> [String: String] {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("FormerTexts")
        return Dictionary(uniqueKeysWithValues: try SchemaFolder.read(folder).map { ($0.name, $0.sql) })
    }

    /// A database migrated by a former migrator with the former texts: applied, each recorded
    /// with its whole text's SHA-256 as migrators recorded it then. The records stay as they
    /// are, so a binary from before (whole-text sums, former texts) still starts on it.
    @Test func aDatabaseMigratedWithTheFormerTextsStartsCleanly() async throws {
        let pool = try await TestDatabase.shared().makePool()
        let former = try Self.formerTexts()
        let formerSchema = try repositorySchema().map { file in
            try former[file.name].map { sql in try MigrationFile(name: file.name, sql: sql) } ?? file
        }
        try await Migrator(files: formerSchema, logger: logger).migrate(pool)
        for file in formerSchema {
            try await pool.execute("UPDATE schema_migrations SET checksum = \(SHA256.hexDigest(Array(file.sql.utf8))) WHERE name = \(file.name)")
        }
        let wholeTextSums = formerSchema.map { [$0.name, SHA256.hexDigest(Array($0.sql.utf8))] }

        let migrator = Migrator(files: try repositorySchema(), logger: logger)
        #expect(try await migrator.plan(pool).applied.count == formerSchema.count)
        #expect(try await migrator.migrate(pool).isEmpty)
        let recorded = try await pool.query("SELECT name, checksum FROM schema_migrations ORDER BY name").map { row in
            [try row.decode("name", as: String.self), try row.decode("checksum", as: String.self)]
        }
        #expect(recorded == wholeTextSums)
        await pool.close()
    }

    /// Comments may change after apply; statements still may not, whichever sum is recorded.
    @Test func aChangedStatementIsStillRefusedWhateverTheRecord() async throws {
        let pool = try await TestDatabase.shared().makePool()
        let sql = "-- a table\nCREATE TABLE t (x int);"
        try await Migrator(files: [try MigrationFile(name: "0001_t.sql", sql: sql)], logger: logger).migrate(pool)
        let recommented = try MigrationFile(name: "0001_t.sql", sql: "-- the table, better said\nCREATE TABLE t (x int);")
        #expect(try await Migrator(files: [recommented], logger: logger).migrate(pool).isEmpty)
        let restated = try MigrationFile(name: "0001_t.sql", sql: "-- a table\nCREATE TABLE t (x bigint);")
        await #expect(throws: MigrationError.changedAfterApply("0001_t.sql")) {
            try await Migrator(files: [restated], logger: logger).migrate(pool)
        }
        try await pool.execute("UPDATE schema_migrations SET checksum = \(SHA256.hexDigest(Array(sql.utf8)))")
        await #expect(throws: MigrationError.changedAfterApply("0001_t.sql")) {
            try await Migrator(files: [restated], logger: logger).migrate(pool)
        }
        await pool.close()
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
        let original = try MigrationFile(name: "0001_t.sql", sql: "CREATE TABLE t (x int);")
        try await Migrator(files: [original], logger: logger).migrate(pool)
        let edited = try MigrationFile(name: "0001_t.sql", sql: "CREATE TABLE t (x int, y int);")
        let next = try MigrationFile(name: "0002_u.sql", sql: "CREATE TABLE u (x int);")
        await #expect(throws: MigrationError.changedAfterApply("0001_t.sql")) {
            try await Migrator(files: [edited, next], logger: logger).migrate(pool)
        }
        let u = try await pool.query("SELECT to_regclass('u') IS NULL AS missing")
        #expect(try u[0].decode("missing", as: Bool.self))
        await pool.close()
    }

    @Test func aFailingFileRollsBackWhole() async throws {
        let pool = try await TestDatabase.shared().makePool()
        let broken = try MigrationFile(name: "0001_x.sql", sql: "CREATE TABLE x (a int); SELECT * FROM no_such_table;")
        await #expect(throws: MigrationError.self) { try await Migrator(files: [broken], logger: logger).migrate(pool) }
        let rows = try await pool.query("SELECT to_regclass('x') IS NULL AS missing")
        #expect(try rows[0].decode("missing", as: Bool.self))
        await pool.close()
    }
}
