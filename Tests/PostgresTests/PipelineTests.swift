import Foundation
import ScorecastLogging
@testable import Postgres
import TestSupport
import Testing

/// `pipeline`: several statements in one round trip (libpq pipeline mode), against the real
/// server: results in order, the first failure named and the rest not run, nothing
/// half-written, cancellation as for one statement, the prepared-statement cache in use.
@Suite struct PipelineTests {
    private func makeLedger() async throws -> PostgresPool {
        let pool = try await TestDatabase.shared().makePool()
        try await pool.execute("CREATE TABLE ledger (id int8 PRIMARY KEY, note text)")
        return pool
    }

    private func notes(_ pool: PostgresPool) async throws -> [String] {
        try await pool.query("SELECT note FROM ledger ORDER BY id").map { try $0.decode("note", as: String.self) }
    }

    @Test func returnsEachStatementsResultInOrder() async throws {
        let pool = try await makeLedger()
        let results = try await pool.pipeline([
            "INSERT INTO ledger VALUES (\(1), \("one")), (\(2), \("two"))",
            "UPDATE ledger SET note = note || \("!") WHERE id = \(2)",
            "SELECT id, note FROM ledger ORDER BY id",
            "SELECT \(Int64(40)) + 2 AS answer, \("text") AS word, NULL::int4 AS nothing",
        ])
        #expect(results.map(\.commandTag) == ["INSERT 0 2", "UPDATE 1", "SELECT 2", "SELECT 1"])
        #expect(results.map(\.affected) == [2, 1, 2, 1])
        #expect(results[0].rows.isEmpty)
        #expect(try results[2].rows.map { try $0.decode("id", as: Int64.self) } == [1, 2])
        #expect(try results[2].rows.map { try $0.decode("note", as: String.self) } == ["one", "two!"])
        #expect(try results[3].rows[0].decode("answer", as: Int64.self) == 42)
        #expect(try results[3].rows[0].decode("word", as: String.self) == "text")
        #expect(try results[3].rows[0].decode("nothing", as: Int32?.self) == nil)
        #expect(try await pool.pipeline([]).isEmpty)
        await pool.close()
    }

    @Test func aFailureInTheMiddleNamesTheStatementAndUndoesTheImplicitTransaction() async throws {
        let pool = try await makeLedger()
        let error = await #expect(throws: PostgresError.self) {
            try await pool.pipeline([
                "INSERT INTO ledger VALUES (\(1), \("first"))",
                "INSERT INTO ledger VALUES (\(1), \("duplicate"))",
                "INSERT INTO ledger VALUES (\(3), \("never"))",
            ])
        }
        #expect(error?.code == .queryFailed)
        #expect(error?.sqlState == PostgresError.SQLState.uniqueViolation)
        #expect(error?.statementIndex == 1)
        #expect(error?.constraint == "ledger_pkey")
        #expect(error?.description.contains("statement 1") == true)
        // Up to the Sync the statements were one implicit transaction: the first insert is gone
        // with it, the third never ran.
        #expect(try await notes(pool) == [])
        // The connection is usable afterwards, outside any block.
        try await pool.withConnection { connection in
            #expect(connection.isIdle)
            let rows = try await connection.pipeline(["SELECT \(7)::int4 AS n"])[0].rows
            #expect(try rows[0].decode("n", as: Int32.self) == 7)
        }
        await pool.close()
    }

    @Test func aTransactionInsideThePipelineIsRolledBackWhole() async throws {
        let pool = try await makeLedger()
        let error = await #expect(throws: PostgresError.self) {
            try await pool.pipeline([
                "BEGIN",
                "INSERT INTO ledger VALUES (\(1), \("a"))",
                "INSERT INTO ledger VALUES (\(2), \("b"))",
                "SELECT 1 / \(0)",
                "INSERT INTO ledger VALUES (\(3), \("c"))",
                "COMMIT",
            ])
        }
        #expect(error?.statementIndex == 3)
        #expect(error?.sqlState == "22012")
        #expect(try await notes(pool) == [])
        // The block the pipeline opened was rolled back, not left aborted for the next user.
        try await pool.withConnection { connection in #expect(connection.isIdle) }
        let committed = try await pool.pipeline([
            "BEGIN", "INSERT INTO ledger VALUES (\(1), \("a"))", "INSERT INTO ledger VALUES (\(2), \("b"))", "COMMIT",
        ])
        #expect(committed.map(\.commandTag) == ["BEGIN", "INSERT 0 1", "INSERT 0 1", "COMMIT"])
        #expect(try await notes(pool) == ["a", "b"])
        await pool.close()
    }

    @Test func aFailingPipelineInsideWithTransactionRollsBackTheWholeTransaction() async throws {
        let pool = try await makeLedger()
        await #expect(throws: PostgresError.self) {
            try await pool.withTransaction { connection in
                try await connection.execute("INSERT INTO ledger VALUES (\(1), \("before"))")
                _ = try await connection.pipeline([
                    "INSERT INTO ledger VALUES (\(2), \("in the pipeline"))",
                    "INSERT INTO ledger VALUES (\(2), \("duplicate"))",
                ])
            }
        }
        #expect(try await notes(pool) == [])
        let written = try await pool.withTransaction { connection in
            try await connection.execute("INSERT INTO ledger VALUES (\(1), \("before"))")
            return try await connection.pipeline([
                "INSERT INTO ledger VALUES (\(2), \("in the pipeline"))",
                "SELECT count(*) AS n FROM ledger",
            ])
        }
        #expect(try written[1].rows[0].decode("n", as: Int.self) == 2)
        #expect(try await notes(pool) == ["before", "in the pipeline"])
        await pool.close()
    }

    @Test func aPipelineInAnAbortedTransactionFailsAtItsFirstStatement() async throws {
        let pool = try await makeLedger()
        let error = await #expect(throws: PostgresError.self) {
            try await pool.withTransaction { connection in
                try await connection.execute("INSERT INTO ledger VALUES (\(1), \("a"))")
                _ = try? await connection.execute("SELECT 1 / \(0)")
                _ = try await connection.pipeline(["INSERT INTO ledger VALUES (\(2), \("b"))", "SELECT 1"])
            }
        }
        #expect(error?.sqlState == "25P02")
        #expect(error?.statementIndex == 0)
        #expect(try await notes(pool) == [])
        await pool.close()
    }

    @Test func manyStatementsAndLargeParametersGoThroughInOneCall() async throws {
        let pool = try await makeLedger()
        let inserts: [SQL] = (1...2_000).map { "INSERT INTO ledger VALUES (\(Int64($0)), \("note \($0)")) RETURNING id" }
        let results = try await pool.pipeline(inserts)
        #expect(results.count == 2_000)
        #expect(try results.map { try $0.rows[0].decode("id", as: Int64.self) } == Array(1...2_000))
        // Several megabytes each way: the client sends while the server already answers.
        let big = String(repeating: "0123456789abcdef", count: 256 * 1024)  // 4 MiB
        let echoes = try await pool.pipeline(Array(repeating: "SELECT \(big) AS v, length(\(big)) AS n", count: 6))
        for echo in echoes {
            #expect(try echo.rows[0].decode("n", as: Int.self) == big.utf8.count)
            #expect(try echo.rows[0].decode("v", as: String.self) == big)
        }
        #expect(try await pool.query("SELECT count(*) AS n FROM ledger")[0].decode("n", as: Int.self) == 2_000)
        await pool.close()
    }

    @Test func statementsArePreparedOnceAndReused() async throws {
        let pool = try await makeLedger()
        let statement: SQL = "SELECT note FROM ledger WHERE id = \(Int64(1))"
        try await pool.withConnection { connection in
            try await connection.execute("INSERT INTO ledger VALUES (\(1), \("a"))")
            func prepared() async throws -> [String] {
                try await connection.query("""
                    SELECT name FROM pg_prepared_statements WHERE statement = \(statement.text) ORDER BY name
                    """).map { try $0.decode("name", as: String.self) }
            }
            let first = try await connection.pipeline([statement, statement, statement])
            #expect(try first.map { try $0.rows[0].decode("note", as: String.self) } == ["a", "a", "a"])
            let names = try await prepared()
            #expect(names.count == 1)
            _ = try await connection.pipeline([statement])
            _ = try await connection.query(statement)
            #expect(try await prepared() == names)
        }
        await pool.close()
    }

    @Test func aStatementWhosePlanWentStaleIsPreparedAgain() async throws {
        let pool = try await makeLedger()
        try await pool.withConnection { connection in
            try await connection.execute("INSERT INTO ledger VALUES (\(1), \("a"))")
            _ = try await connection.pipeline(["SELECT * FROM ledger"])
            try await connection.execute("ALTER TABLE ledger ADD COLUMN extra int4 DEFAULT 5")
            let rows = try await connection.pipeline(["SELECT * FROM ledger"])[0].rows
            #expect(try rows[0].decode("extra", as: Int32.self) == 5)
        }
        await pool.close()
    }

    @Test func cancellingTheTaskCancelsTheRunningStatement() async throws {
        let pool = try await makeLedger()
        let task = Task {
            try await pool.pipeline([
                "INSERT INTO ledger VALUES (\(1), \("a"))", "SELECT pg_sleep(60)", "INSERT INTO ledger VALUES (\(2), \("b"))",
            ])
        }
        // Cancel once the server is inside the sleep (no wall-clock guess).
        while try await pool.query("SELECT count(*) AS n FROM pg_stat_activity WHERE query = 'SELECT pg_sleep(60)' AND state = 'active'")[0]
            .decode("n", as: Int.self) == 0
        {
            try await Task.sleep(for: .milliseconds(10))
        }
        task.cancel()
        let error = await #expect(throws: PostgresError.self) { try await task.value }
        #expect(error?.sqlState == PostgresError.SQLState.queryCanceled)
        #expect(error?.statementIndex == 1)
        #expect(try await notes(pool) == [])
        await pool.close()
    }
}
