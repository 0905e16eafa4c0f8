import Foundation
import ScorecastLogging
import Postgres
import TestSupport
import Testing

/// The statement cache against a real server, seen through `pg_prepared_statements` (which
/// lists the statements of the session that asks, so each test uses one standalone connection).
@Suite struct PreparedStatementTests {
    private struct Prepared: Equatable {
        var statement: String
        var runs: Int
    }

    private func connect(capacity: Int = PostgresConfiguration.defaultStatementCacheCapacity) async throws -> PostgresConnection {
        var configuration = try await TestDatabase.shared().makeSchema()
        configuration.statementCacheCapacity = capacity
        return try await PostgresConnection.connect(configuration: configuration, logger: TestDatabase.logger)
    }

    /// The cache's statements on this session, oldest first, with how often each ran. The
    /// question itself is unprepared so it does not count itself.
    private func prepared(_ connection: PostgresConnection) async throws -> [Prepared] {
        try await connection.query(.unprepared("""
            SELECT statement, (generic_plans + custom_plans)::int8 AS runs FROM pg_prepared_statements
            WHERE name LIKE 'scorecast\\_s%' AND NOT from_sql ORDER BY prepare_time, name
            """)).map { Prepared(statement: try $0.decode("statement"), runs: try $0.decode("runs", as: Int.self)) }
    }

    private func runs(of sql: SQL, on connection: PostgresConnection) async throws -> [Int] {
        try await prepared(connection).filter { $0.statement == sql.text }.map(\.runs)
    }

    @Test func resultsThroughTheCacheAreCorrectAndEachStatementIsPreparedOnce() async throws {
        let connection = try await connect()
        try await connection.execute("CREATE TABLE scores (id int8 PRIMARY KEY, team text NOT NULL, points int4)")
        for id in 1...20 {
            try await connection.execute("INSERT INTO scores VALUES (\(Int64(id)), \("team\(id % 4)"), \(Int32(id * 3)))")
        }
        for id in 1...20 {
            let rows = try await connection.query("SELECT team, points FROM scores WHERE id = \(Int64(id))")
            #expect(rows.count == 1)
            #expect(try rows[0].decode("team", as: String.self) == "team\(id % 4)")
            #expect(try rows[0].decode("points", as: Int32.self) == Int32(id * 3))
        }
        // The same text with another parameter type is a statement of its own.
        let narrow = try await connection.query("SELECT team FROM scores WHERE id = \(Int32(5))")
        #expect(try narrow[0].decode("team", as: String.self) == "team1")
        let nulls = try await connection.query("SELECT count(*) AS n FROM scores WHERE points = \(Int32?.none)")
        #expect(try nulls[0].decode("n", as: Int.self) == 0)

        let list = try await prepared(connection)
        #expect(list.filter { $0.statement == "INSERT INTO scores VALUES ($1, $2, $3)" }.map(\.runs) == [20])
        #expect(list.filter { $0.statement == "SELECT team, points FROM scores WHERE id = $1" }.map(\.runs) == [20])
        #expect(list.filter { $0.statement == "SELECT team FROM scores WHERE id = $1" }.map(\.runs) == [1])
        await connection.close()
    }

    @Test func aZeroCapacityPreparesNothing() async throws {
        let connection = try await connect(capacity: 0)
        for value in 0..<5 {
            #expect(try await connection.query("SELECT \(Int64(value)) + 1 AS n")[0].decode("n", as: Int64.self) == Int64(value) + 1)
        }
        #expect(try await prepared(connection).isEmpty)
        await connection.close()
    }

    @Test func unpreparedStatementsStayOutOfTheCache() async throws {
        let connection = try await connect()
        let rows = try await connection.query(.unprepared("SELECT \(Int64(41)) + 1 AS n"))
        #expect(try rows[0].decode("n", as: Int64.self) == 42)
        _ = try await connection.query("SELECT \(Int64(1)) AS cached")
        #expect(try await prepared(connection).map(\.statement) == ["SELECT $1 AS cached"])
        await connection.close()
    }

    @Test func discardAllThroughEitherPathIsFollowedByARePrepare() async throws {
        let connection = try await connect()
        let query: SQL = "SELECT \(Int64(7)) * 6 AS n"
        #expect(try await connection.query(query)[0].decode("n", as: Int64.self) == 42)
        try await connection.execute("DISCARD ALL")
        #expect(try await prepared(connection).isEmpty)
        #expect(try await connection.query(query)[0].decode("n", as: Int64.self) == 42)
        #expect(try await runs(of: query, on: connection) == [1])

        // A script reports no per-statement tags: the cache asks the server what is left.
        try await connection.executeScript(unsafeSQL: "DISCARD ALL")
        #expect(try await connection.query(query)[0].decode("n", as: Int64.self) == 42)
        #expect(try await runs(of: query, on: connection) == [1])
        await connection.close()
    }

    @Test func statementsDroppedBehindTheCachesBackArePreparedAgain() async throws {
        let connection = try await connect()
        // A function hides the DEALLOCATE from the command tag, so the cache finds out only
        // when the server answers 26000 "prepared statement does not exist".
        try await connection.execute("""
            CREATE FUNCTION drop_prepared() RETURNS void LANGUAGE plpgsql AS $$ BEGIN EXECUTE 'DEALLOCATE ALL'; END $$
            """)
        let query: SQL = "SELECT \(Int64(2)) + 3 AS n"
        #expect(try await connection.query(query)[0].decode("n", as: Int64.self) == 5)
        try await connection.execute(.unprepared("SELECT drop_prepared()"))
        #expect(try await prepared(connection).isEmpty)
        #expect(try await connection.query(query)[0].decode("n", as: Int64.self) == 5)
        #expect(try await runs(of: query, on: connection) == [1])

        // Inside a transaction block the failure has aborted the transaction: it is reported,
        // ROLLBACK still works, and the statement is prepared again afterwards.
        try await connection.execute(.unprepared("SELECT drop_prepared()"))
        try await connection.execute(.unprepared("BEGIN"))
        do {
            _ = try await connection.query(query)
            Issue.record("a statement the server no longer had ran inside a transaction")
        } catch let error as PostgresError {
            #expect(error.sqlState == "26000")
        }
        try await connection.execute("ROLLBACK")
        #expect(connection.isIdle)
        #expect(try await connection.query(query)[0].decode("n", as: Int64.self) == 5)
        #expect(try await runs(of: query, on: connection) == [1])
        await connection.close()
    }

    @Test func aChangedResultTypeIsPreparedAgain() async throws {
        let connection = try await connect()
        try await connection.execute("CREATE TABLE games (id int8 PRIMARY KEY, league text)")
        try await connection.execute("INSERT INTO games VALUES (\(Int64(1)), \("NHL"))")
        let query: SQL = "SELECT * FROM games WHERE id = \(Int64(1))"
        #expect(try await connection.query(query)[0].columns.names == ["id", "league"])

        try await connection.execute("ALTER TABLE games ADD COLUMN period int4 DEFAULT 3")
        let widened = try await connection.query(query)
        #expect(widened[0].columns.names == ["id", "league", "period"])
        #expect(try widened[0].decode("period", as: Int32.self) == 3)
        // The stale statement was deallocated, not left behind.
        #expect(try await runs(of: query, on: connection) == [1])

        // Inside a block the 0A000 aborts the transaction; after ROLLBACK it works again.
        try await connection.execute("ALTER TABLE games ADD COLUMN clock text DEFAULT '20:00'")
        try await connection.execute("BEGIN")
        do {
            _ = try await connection.query(query)
            Issue.record("a statement whose result type changed ran inside a transaction")
        } catch let error as PostgresError {
            #expect(error.sqlState == "0A000")
        }
        try await connection.execute("ROLLBACK")
        #expect(try await connection.query(query)[0].columns.names == ["id", "league", "period", "clock"])
        #expect(try await runs(of: query, on: connection) == [1])
        await connection.close()
    }

    @Test func anAbortedTransactionRecordsNothingAndLeavesTheCacheUsable() async throws {
        let connection = try await connect()
        try await connection.execute("CREATE TABLE ledger (id int8 PRIMARY KEY)")
        let insert: SQL = "INSERT INTO ledger VALUES (\(Int64(1)))"
        let count: SQL = "SELECT count(*) AS n FROM ledger WHERE id > \(Int64(0))"
        try await connection.execute("BEGIN")
        try await connection.execute(insert)
        do {
            try await connection.execute(insert)
            Issue.record("a duplicate key was accepted")
        } catch let error as PostgresError {
            #expect(error.sqlState == PostgresError.SQLState.uniqueViolation)
        }
        // Never seen before, in an aborted transaction: fails, and is not recorded.
        do {
            _ = try await connection.query(count)
            Issue.record("a statement ran in an aborted transaction")
        } catch let error as PostgresError {
            #expect(error.sqlState == "25P02")
        }
        try await connection.execute("ROLLBACK")
        #expect(connection.isIdle)
        #expect(try await runs(of: count, on: connection) == [])

        #expect(try await connection.query(count)[0].decode("n", as: Int.self) == 0)
        try await connection.execute(insert)
        #expect(try await connection.query(count)[0].decode("n", as: Int.self) == 1)
        #expect(try await runs(of: count, on: connection) == [2])
        #expect(try await runs(of: insert, on: connection) == [3])
        await connection.close()
    }

    @Test func aRolledBackPooledTransactionLeavesTheCacheUsable() async throws {
        let pool = try await TestDatabase.shared().makePool(maxConnections: 1)
        try await pool.execute("CREATE TABLE ledger (id int8 PRIMARY KEY)")
        for _ in 0..<3 {
            do {
                try await pool.withTransaction { connection in
                    try await connection.execute("INSERT INTO ledger VALUES (\(Int64(1)))")
                    try await connection.execute("INSERT INTO ledger VALUES (\(Int64(1)))")
                }
                Issue.record("a duplicate key was accepted")
            } catch let error as PostgresError {
                #expect(error.sqlState == PostgresError.SQLState.uniqueViolation)
            }
        }
        _ = try await pool.withTransaction { try await $0.execute("INSERT INTO ledger VALUES (\(Int64(1)))") }
        #expect(try await pool.query("SELECT count(*) AS n FROM ledger")[0].decode("n", as: Int.self) == 1)
        await pool.close()
    }

    @Test func atCapacityEvictedStatementsAreDeallocated() async throws {
        let capacity = 3
        let connection = try await connect(capacity: capacity)
        var texts: [String] = []
        for index in 0..<10 {
            let sql: SQL = "SELECT \(Int64(index)) + \(unsafeSQL: String(index)) AS n"
            texts.append(sql.text)
            #expect(try await connection.query(sql)[0].decode("n", as: Int64.self) == Int64(2 * index))
            #expect(try await prepared(connection).count <= capacity)
        }
        #expect(Set(try await prepared(connection).map(\.statement)) == Set(texts.suffix(capacity)))
        // An evicted statement simply comes back.
        #expect(try await connection.query("SELECT \(Int64(0)) + 0 AS n")[0].decode("n", as: Int64.self) == 0)
        #expect(try await prepared(connection).count == capacity)

        // Inside a block evictions wait for the block to end (a failing DEALLOCATE would abort
        // it); the next statement outside one catches up.
        try await connection.execute("BEGIN")
        for index in 20..<26 { _ = try await connection.query("SELECT \(Int64(index)) + \(unsafeSQL: String(index)) AS n") }
        try await connection.execute("COMMIT")
        _ = try await connection.query("SELECT \(Int64(1)) + 1 AS n")
        #expect(try await prepared(connection).count <= capacity)
        await connection.close()
    }

    @Test func aNameTakenBySQLPrepareIsSkipped() async throws {
        let connection = try await connect()
        try await connection.execute(.unprepared("PREPARE scorecast_s1 AS SELECT 'theirs' AS who"))
        #expect(try await connection.query("SELECT \("ours") AS who")[0].decode("who", as: String.self) == "ours")
        let theirs = try await connection.query(.unprepared("EXECUTE scorecast_s1"))
        #expect(try theirs[0].decode("who", as: String.self) == "theirs")
        #expect(try await runs(of: "SELECT $1 AS who", on: connection) == [1])
        await connection.close()
    }

    @Test func listeningIsUnaffected() async throws {
        let pool = try await TestDatabase.shared().makePool(maxConnections: 1)
        let channel = "ch_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        var iterator = pool.listen(channel).makeAsyncIterator()
        // Once the subscription is active every notification arrives.
        #expect(try await iterator.next() == .listening)
        for index in 0..<20 { try await pool.notify(channel: channel, payload: "n\(index)") }
        var received: [String] = []
        while received.count < 20, case .notification(let notification)? = try await iterator.next() {
            received.append(notification.payload)
        }
        #expect(received == (0..<20).map { "n\($0)" })
        // The notifications went through one prepared statement on the pool's connection.
        let runs = try await pool.withConnection { connection in
            try await self.runs(of: "SELECT pg_notify($1, $2)", on: connection)
        }
        #expect(runs.count == 1)
        #expect(runs.first == 20)
        await pool.close()
    }
}
