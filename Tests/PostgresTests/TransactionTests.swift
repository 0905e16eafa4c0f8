import Foundation
import ScorecastLogging
import Postgres
import TestSupport
import Testing

@Suite struct TransactionTests {
    private struct Boom: Error {}

    /// `SAVEPOINT` only works inside a transaction block (else SQLSTATE 25P01).
    private func insideTransactionBlock(_ connection: PostgresConnection) async throws -> Bool {
        do {
            try await connection.execute("SAVEPOINT probe")
            try await connection.execute("RELEASE SAVEPOINT probe")
            return true
        } catch let error as PostgresError where error.sqlState == "25P01" {
            return false
        }
    }

    private func count(_ pool: PostgresPool) async throws -> Int {
        try await pool.query("SELECT count(*) AS n FROM ledger")[0].decode("n", as: Int.self)
    }

    private func makeLedger() async throws -> PostgresPool {
        let pool = try await TestDatabase.shared().makePool()
        try await pool.execute("CREATE TABLE ledger (id int8 PRIMARY KEY, note text)")
        return pool
    }

    @Test func localSettingsHoldForTheTransactionAloneAndABadOneIsRefused() async throws {
        try await TestDatabase.shared().withPool(maxConnections: 1) { pool in
            try await pool.execute("CREATE TABLE ledger (id int8 PRIMARY KEY, note text)")
            let inside = try await pool.withTransaction(localSettings: ["plan_cache_mode": "force_generic_plan", "work_mem": "8MB"]) { connection in
                #expect(try await insideTransactionBlock(connection))
                try await connection.execute("INSERT INTO ledger VALUES (\(1), \("a"))")
                return try await connection.query("SELECT current_setting('plan_cache_mode') AS p, current_setting('work_mem') AS w")[0]
            }
            #expect(try inside.decode("p", as: String.self) == "force_generic_plan")
            #expect(try inside.decode("w", as: String.self) == "8MB")
            // The same (only) connection afterwards: back to the server's values.
            let after = try await pool.query("SELECT current_setting('plan_cache_mode') AS p")[0]
            #expect(try after.decode("p", as: String.self) == "auto")
            #expect(try await count(pool) == 1)
            // A setting the server does not know fails the transaction before the body runs.
            var ran = false
            let error = await #expect(throws: PostgresError.self) {
                try await pool.withTransaction(localSettings: ["no_such_setting_x": "1"]) { connection in
                    ran = true
                    try await connection.execute("INSERT INTO ledger VALUES (\(2), \("b"))")
                }
            }
            #expect(error?.message.contains("no_such_setting_x") == true, "\(String(describing: error))")
            #expect(!ran)
            #expect(try await count(pool) == 1)
            // The connection is usable again.
            #expect(try await pool.query("SELECT 1 AS one")[0].decode("one", as: Int.self) == 1)
        }
    }

    @Test func openingStatementsGoWithBeginAndTheBodyGetsTheirResults() async throws {
        try await TestDatabase.shared().withPool(maxConnections: 1) { pool in
            try await pool.execute("CREATE TABLE ledger (id int8 PRIMARY KEY, note text)")
            try await pool.execute("INSERT INTO ledger VALUES (\(1), \("a"))")
            let (note, inserted, setting) = try await pool.withTransaction(
                localSettings: ["work_mem": "8MB"],
                opening: ["SELECT note FROM ledger WHERE id = \(Int64(1)) FOR UPDATE", "INSERT INTO ledger VALUES (\(2), \("b")) RETURNING id"]
            ) { connection, opened in
                #expect(try await insideTransactionBlock(connection))
                let setting = try await connection.query("SELECT current_setting('work_mem') AS w")[0].decode("w", as: String.self)
                return (try opened[0].rows[0].decode("note", as: String.self), try opened[1].rows[0].decode("id", as: Int64.self), setting)
            }
            #expect(note == "a")
            #expect(inserted == 2)
            #expect(setting == "8MB")
            #expect(try await count(pool) == 2)

            // A failing opening statement: named by its place among the opening ones, nothing of
            // the transaction kept, the body never run, the connection clean.
            var ran = false
            let error = await #expect(throws: PostgresError.self) {
                try await pool.withTransaction(
                    localSettings: ["work_mem": "8MB"],
                    opening: ["INSERT INTO ledger VALUES (\(3), \("c"))", "INSERT INTO ledger VALUES (\(1), \("duplicate"))"]
                ) { _, _ in ran = true }
            }
            #expect(error?.sqlState == PostgresError.SQLState.uniqueViolation)
            #expect(error?.statementIndex == 1)
            #expect(!ran)
            #expect(try await count(pool) == 2)
            #expect(try await pool.withConnection { try await insideTransactionBlock($0) } == false)

            // A refused setting is no opening statement's fault: no index points into `opening`.
            let refused = await #expect(throws: PostgresError.self) {
                try await pool.withTransaction(localSettings: ["work_mem": "not a size"], opening: ["SELECT 1"]) { _, _ in ran = true }
            }
            #expect(refused?.statementIndex == nil)
            #expect(refused?.message.contains("work_mem") == true)
            #expect(!ran)
        }
    }

    @Test func commitsWhenTheBodySucceeds() async throws {
        let pool = try await makeLedger()
        let returned = try await pool.withTransaction { connection in
            try await connection.execute("INSERT INTO ledger VALUES (\(1), \("a"))")
            try await connection.execute("INSERT INTO ledger VALUES (\(2), \("b"))")
            return "done"
        }
        #expect(returned == "done")
        #expect(try await count(pool) == 2)
        await pool.close()
    }

    @Test func rollsBackAndRethrowsWhenTheBodyThrows() async throws {
        let pool = try await makeLedger()
        await #expect(throws: Boom.self) {
            try await pool.withTransaction { connection in
                try await connection.execute("INSERT INTO ledger VALUES (\(1), \("a"))")
                throw Boom()
            }
        }
        #expect(try await count(pool) == 0)
        // The connection went back to the pool clean, outside any transaction block.
        #expect(try await pool.withConnection { try await insideTransactionBlock($0) } == false)
        await pool.close()
    }

    @Test func rollsBackWhenAStatementFails() async throws {
        let pool = try await makeLedger()
        do {
            try await pool.withTransaction { connection in
                try await connection.execute("INSERT INTO ledger VALUES (\(1), \("a"))")
                try await connection.execute("INSERT INTO ledger VALUES (\(1), \("duplicate"))")
            }
            Issue.record("a duplicate key was accepted")
        } catch let error as PostgresError {
            #expect(error.sqlState == PostgresError.SQLState.uniqueViolation)
        }
        #expect(try await count(pool) == 0)
        await pool.close()
    }

    @Test func aSwallowedStatementErrorIsNotReportedAsACommit() async throws {
        let pool = try await makeLedger()
        do {
            try await pool.withTransaction { connection in
                try await connection.execute("INSERT INTO ledger VALUES (\(1), \("a"))")
                _ = try? await connection.execute("SELECT 1/0")
            }
            Issue.record("COMMIT of an aborted transaction was reported as success")
        } catch let error as PostgresError {
            #expect(error.code == .transactionRolledBack)
        }
        #expect(try await count(pool) == 0)
        await pool.close()
    }

    @Test func aConnectionLeftInsideATransactionIsNotReused() async throws {
        let sink = MemorySink()
        let pool = try await TestDatabase.shared().makePool(
            maxConnections: 1, logger: Logger(label: "t", level: .warning, sink: sink))
        let firstPID = try await pool.withConnection { connection in
            try await connection.execute("BEGIN")
            return connection.backendPID
        }
        let (pid, inTransaction) = try await pool.withConnection { connection in
            (connection.backendPID, try await insideTransactionBlock(connection))
        }
        #expect(pid != firstPID)
        #expect(!inTransaction)
        #expect(sink.lines.contains { $0.contains("handed back inside a transaction") })
        await pool.close()
    }

    @Test func scriptsRunSeveralStatements() async throws {
        let pool = try await TestDatabase.shared().makePool()
        try await pool.withConnection { connection in
            try await connection.executeScript(unsafeSQL: """
                CREATE TABLE a (id int);
                CREATE TABLE b (id int);
                INSERT INTO a VALUES (1), (2);
                """)
        }
        #expect(try await pool.query("SELECT count(*) AS n FROM a")[0].decode("n", as: Int.self) == 2)
        #expect(try await pool.execute("UPDATE a SET id = id + 1") == 2)
        #expect(try await pool.execute("DELETE FROM b") == 0)
        await pool.close()
    }
}

@Suite struct PostgresConnectionTests {
    @Test func aStandaloneConnectionRunsStatementsInOrderAndCloses() async throws {
        let configuration = try await TestDatabase.shared().makeSchema()
        let connection = try await PostgresConnection.connect(configuration: configuration, logger: TestDatabase.logger)
        try await connection.execute("CREATE TABLE seq (n int)")
        try await withThrowingTaskGroup(of: Void.self) { group in
            for n in 0..<10 { group.addTask { try await connection.execute("INSERT INTO seq VALUES (\(Int32(n)))") } }
            try await group.waitForAll()
        }
        #expect(try await connection.query("SELECT count(*) AS n FROM seq")[0].decode("n", as: Int.self) == 10)
        let path = try await connection.query("SELECT current_schemas(false)::text[] AS s")
        #expect(try path[0].decode("s", as: [String].self) == configuration.searchPath)
        #expect(connection.isIdle)
        await connection.close()
        #expect(connection.isBroken)
        do {
            _ = try await connection.query("SELECT 1")
            Issue.record("a closed connection ran a statement")
        } catch let error as PostgresError {
            #expect(error.code == .connectionClosed)
        }
        await connection.close()
    }

    @Test func aChildProcessCanConnectWithTheURL() async throws {
        let configuration = try await TestDatabase.shared().makeSchema()
        let copy = try PostgresConfiguration(url: configuration.urlIncludingPassword)
        let connection = try await PostgresConnection.connect(configuration: copy, logger: TestDatabase.logger)
        let rows = try await connection.query("SELECT current_schema() AS s")
        #expect(try rows[0].decode("s", as: String?.self) == configuration.searchPath?.first)
        await connection.close()
    }
}
