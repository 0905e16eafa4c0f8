import Foundation
@testable import Postgres
import TestSupport
import Testing

@Suite struct PostgresErrorTests {
    @Test func injectionAttemptsStayData() async throws {
        let pool = try await TestDatabase.shared().makePool()
        try await pool.execute("CREATE TABLE x (name text)")
        let hostile = "'; DROP TABLE x; --"
        try await pool.execute("INSERT INTO x (name) VALUES (\(hostile))")
        try await pool.execute("INSERT INTO x (name) VALUES (\("x'); DELETE FROM x; SELECT ('"))")
        let rows = try await pool.query("SELECT name FROM x WHERE name = \(hostile)")
        #expect(try rows.map { try $0.decode("name", as: String.self) } == [hostile])
        #expect(try await pool.query("SELECT count(*) AS n FROM x")[0].decode("n", as: Int.self) == 2)
        // Hostile identifiers are quoted too.
        await #expect(throws: PostgresError.self) { try await pool.query("SELECT * FROM \(identifier: "x; DROP TABLE x")") }
        #expect(try await pool.query("SELECT count(*) AS n FROM x")[0].decode("n", as: Int.self) == 2)
        await pool.close()
    }

    @Test func uniqueViolationsCarrySQLStateAndConstraintButNoValues() async throws {
        let pool = try await TestDatabase.shared().makePool()
        try await pool.execute("CREATE TABLE accounts (email text UNIQUE)")
        let email = "private.person@example.com"
        try await pool.execute("INSERT INTO accounts VALUES (\(email))")
        do {
            try await pool.execute("INSERT INTO accounts VALUES (\(email))")
            Issue.record("duplicate accepted")
        } catch let error as PostgresError {
            #expect(error.code == .queryFailed)
            #expect(error.sqlState == "23505")
            #expect(error.constraint == "accounts_email_key")
            #expect(!error.description.contains(email))
            #expect(!error.description.contains("INSERT"))
            #expect(error.message.contains("duplicate key"))
        }
        await pool.close()
    }

    @Test func dataExceptionsDoNotEchoTheBoundValue() async throws {
        let pool = try await TestDatabase.shared().makePool()
        let secret = "sk_live_NotANumber"
        do {
            _ = try await pool.query("SELECT \(secret)::int")
            Issue.record("a non-number was cast to int")
        } catch let error as PostgresError {
            #expect(error.sqlState == "22P02")
            #expect(!error.description.contains(secret), "\(error)")
            #expect(error.message.contains("invalid input syntax"))
        }
        do {
            _ = try await pool.query("SELECT \(["a", secret])::int8[]")
            Issue.record("text elements were cast to int8")
        } catch let error as PostgresError {
            #expect(!error.description.contains(secret), "\(error)")
        }
        await pool.close()
    }

    @Test func statementTimeoutIsSQLState57014() async throws {
        var configuration = try await TestDatabase.shared().makeSchema()
        configuration.statementTimeout = .milliseconds(100)
        let pool = PostgresPool(configuration: configuration, maxConnections: 1, logger: TestDatabase.logger)
        // A statement that outlived its timeout would succeed: the 57014 failure is the proof,
        // with no clock read (a 3 s bound flaked on a loaded machine).
        do {
            _ = try await pool.query("SELECT pg_sleep(5)")
            Issue.record("the statement outlived its timeout")
        } catch let error as PostgresError {
            #expect(error.code == .queryFailed)
            #expect(error.sqlState == PostgresError.SQLState.queryCanceled)
        }
        // The connection is still good afterwards.
        #expect(try await pool.query("SELECT 1 AS one")[0].decode("one", as: Int.self) == 1)
        await pool.close()
    }

    @Test func cancellingTheTaskCancelsTheStatement() async throws {
        let pool = try await TestDatabase.shared().makePool(maxConnections: 1)
        let observer = try await TestDatabase.shared().makePool(maxConnections: 1)
        let task = Task { try await pool.query("SELECT pg_sleep(10) AS slept_for_cancel_test") }
        // Cancel once the statement runs on the server (a cancel sent before it arrives has
        // nothing to cancel): waiting for that state, not for a guessed number of milliseconds.
        try await eventually("the statement runs on the server", every: .milliseconds(20)) {
            try await observer.query("""
                SELECT count(*)::int AS running FROM pg_stat_activity
                WHERE state = 'active' AND query LIKE '%slept_for_cancel_test%' AND pid <> pg_backend_pid()
                """)[0].decode("running", as: Int.self) > 0
        }
        await observer.close()
        task.cancel()
        // A sleep that ran to its end would be a success: the failure is the proof of the cancel.
        let result = await task.result
        guard case .failure(let error as PostgresError) = result else {
            Issue.record("expected a PostgresError, got \(result)")
            return
        }
        #expect(error.sqlState == PostgresError.SQLState.queryCanceled || error.code == .cancelled)
        #expect(try await pool.query("SELECT 1 AS one")[0].decode("one", as: Int.self) == 1)
        await pool.close()
    }

    @Test func encodingErrorsSurfaceWhenTheStatementRuns() async throws {
        let pool = try await TestDatabase.shared().makePool()
        do {
            _ = try await pool.query("SELECT \("nul\u{0}byte")")
            Issue.record("a NUL byte was sent")
        } catch let error as PostgresError {
            #expect(error.code == .encodingFailed)
        }
        await pool.close()
    }

    @Test func connectionFailuresAreClear() async throws {
        let port = try FreePort.find()
        let configuration = PostgresConfiguration(
            host: "127.0.0.1", port: port, user: "nobody", password: "WrongHorse", database: "none", connectTimeout: .seconds(2))
        do {
            _ = try await PostgresConnection.connect(configuration: configuration, logger: TestDatabase.logger)
            Issue.record("connected to a closed port")
        } catch let error as PostgresError {
            #expect(error.code == .connectionFailed)
            #expect(error.message.contains("\(port)"))
            #expect(!error.description.contains("WrongHorse"))
        }
    }

    @Test func redactionMasksQuotedValues() {
        let binds = [try? "secret".postgresBindValue()].compactMap { $0 }
        #expect(Redaction.redactBoundValues(#"invalid input syntax for type integer: "secret""#, sqlState: "22P02", binds: binds)
            == #"invalid input syntax for type integer: "********""#)
        #expect(Redaction.redactBoundValues(#"value "99999999999" is out of range for type integer"#, sqlState: "22003", binds: [])
            == #"value "********" is out of range for type integer"#)
        #expect(Redaction.redactBoundValues(#"relation "secret" does not exist"#, sqlState: "42P01", binds: binds)
            == #"relation "********" does not exist"#)
        #expect(Redaction.redactBoundValues(#"duplicate key value violates unique constraint "t_key""#, sqlState: "23505", binds: binds)
            == #"duplicate key value violates unique constraint "t_key""#)
        #expect(Redaction.passwordCandidates(in: "postgres://u:p%40ss@h/db").contains("p@ss"))
        #expect(Redaction.passwordCandidates(in: "host=h password='x y' user=u").contains("x y"))
    }
}
