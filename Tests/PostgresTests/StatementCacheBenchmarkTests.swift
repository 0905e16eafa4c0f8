import Foundation
import Postgres
import TestSupport
import Testing

/// Cache on vs off for a realistic statement (three tables joined, six binds), on one
/// connection each, against the test database. Prints the ratio; asserts that both give the
/// same answers and that the cached side prepared the statement once. Set
/// `SCORECAST_STATEMENT_BENCH_N` for a longer run.
@Suite(.serialized) struct StatementCacheBenchmarkTests {
    private static let rounds = 4

    /// The channels of one app bound to one game; the binds are derived from channel
    /// `index * 37 % 2000 + 1` so that most lookups find rows.
    private func lookup(_ index: Int) -> SQL {
        let channel = index * 37 % 2000 + 1
        let app = channel % 20
        return """
        SELECT c.id, c.apns_channel_id, a.bundle_id, b.game_id, c.created_at
        FROM channels c
        JOIN apps a ON a.id = c.app_id
        JOIN channel_bindings b ON b.channel_id = c.id
        WHERE a.bundle_id = \("app.\(app / 2)") AND a.environment = \(app % 2 == 0 ? "production" : "development")
          AND c.status = \("live") AND b.game_id = \("game-\(channel % 50)") AND c.id > \(Int64(index % 7))
        ORDER BY c.id LIMIT \(Int32(20))
        """
    }

    private func run(_ connection: PostgresConnection, from start: Int, count: Int) async throws -> (Duration, [Int64]) {
        var checksums: [Int64] = []
        checksums.reserveCapacity(count)
        let clock = ContinuousClock()
        let began = clock.now
        for index in start..<(start + count) {
            let rows = try await connection.query(lookup(index))
            var sum = Int64(rows.count)
            for row in rows { sum = sum &* 31 &+ (try row.decode("id", as: Int64.self)) }
            checksums.append(sum)
        }
        return (clock.now - began, checksums)
    }

    @Test func cachedStatementsAgreeWithUncachedAndAreFaster() async throws {
        let executions = max(Self.rounds * 10, Int(ProcessInfo.processInfo.environment["SCORECAST_STATEMENT_BENCH_N"] ?? "") ?? 1000)
        var configuration = try await TestDatabase.shared().makeSchema()
        let setup = try await PostgresConnection.connect(configuration: configuration, logger: TestDatabase.logger)
        try await setup.executeScript(unsafeSQL: """
            CREATE TABLE apps (id int8 PRIMARY KEY, bundle_id text NOT NULL, environment text NOT NULL,
                               UNIQUE (bundle_id, environment));
            CREATE TABLE channels (id int8 PRIMARY KEY, app_id int8 NOT NULL REFERENCES apps,
                                   apns_channel_id text NOT NULL, status text NOT NULL,
                                   created_at timestamptz NOT NULL DEFAULT now());
            CREATE INDEX ON channels (app_id, status);
            CREATE TABLE channel_bindings (channel_id int8 NOT NULL REFERENCES channels, game_id text NOT NULL,
                                           PRIMARY KEY (channel_id, game_id));
            CREATE INDEX ON channel_bindings (game_id);
            INSERT INTO apps SELECT i, 'app.' || (i / 2), CASE WHEN i % 2 = 0 THEN 'production' ELSE 'development' END
              FROM generate_series(0, 19) i;
            INSERT INTO channels SELECT i, i % 20, 'ch-' || i, CASE WHEN i % 5 = 0 THEN 'retired' ELSE 'live' END
              FROM generate_series(1, 2000) i;
            INSERT INTO channel_bindings SELECT i, 'game-' || (i % 50) FROM generate_series(1, 2000) i;
            INSERT INTO channel_bindings SELECT i, 'game-' || ((i + 7) % 50) FROM generate_series(1, 2000, 3) i;
            ANALYZE apps; ANALYZE channels; ANALYZE channel_bindings;
            """)
        await setup.close()

        configuration.statementCacheCapacity = 0
        let uncached = try await PostgresConnection.connect(configuration: configuration, logger: TestDatabase.logger)
        configuration.statementCacheCapacity = PostgresConfiguration.defaultStatementCacheCapacity
        let cached = try await PostgresConnection.connect(configuration: configuration, logger: TestDatabase.logger)

        // Warm both sessions (catalog caches, the first plans), then alternate rounds so that
        // any background load on the machine falls on both sides alike.
        _ = try await run(uncached, from: 0, count: 50)
        _ = try await run(cached, from: 0, count: 50)
        let perRound = executions / Self.rounds
        var timeOff = Duration.zero
        var timeOn = Duration.zero
        var nonEmpty = 0
        for round in 0..<Self.rounds {
            let start = round * perRound
            let (off, expected) = try await run(uncached, from: start, count: perRound)
            let (on, actual) = try await run(cached, from: start, count: perRound)
            #expect(actual == expected, "round \(round): the cached statement answered differently")
            nonEmpty += expected.filter { $0 != 0 }.count
            timeOff += off
            timeOn += on
        }
        #expect(nonEmpty > perRound, "the workload should find rows most of the time")

        // One prepared statement on the cached session ran every execution; none on the other.
        let text = lookup(0).text
        let prepared = try await cached.query(.unprepared("""
            SELECT (generic_plans + custom_plans)::int8 AS runs FROM pg_prepared_statements WHERE statement = \(text)
            """))
        #expect(try prepared.map { try $0.decode("runs", as: Int.self) } == [50 + perRound * Self.rounds])
        let none = try await uncached.query(.unprepared("SELECT count(*) AS n FROM pg_prepared_statements"))
        #expect(try none[0].decode("n", as: Int.self) == 0)

        let total = perRound * Self.rounds
        func microseconds(_ duration: Duration) -> Double {
            (Double(duration.components.seconds) * 1e6 + Double(duration.components.attoseconds) / 1e12) / Double(total)
        }
        let ratio = microseconds(timeOff) / microseconds(timeOn)
        print(String(
            format: "statement cache benchmark: %d executions each, off %.1f µs, on %.1f µs per statement, ratio %.2f",
            total, microseconds(timeOff), microseconds(timeOn), ratio))
        await uncached.close()
        await cached.close()
    }

    /// Per-statement cost of the layers above libpq for the cheapest statement: a standalone
    /// connection (thread hop only) against a one-connection pool (lease, liveness poll,
    /// release on top). Prints both; asserts the answers.
    @Test func poolOverheadOverADirectConnection() async throws {
        let executions = max(100, Int(ProcessInfo.processInfo.environment["SCORECAST_STATEMENT_BENCH_N"] ?? "") ?? 1000)
        let configuration = try await TestDatabase.shared().makeSchema()
        let direct = try await PostgresConnection.connect(configuration: configuration, logger: TestDatabase.logger)
        let pool = PostgresPool(configuration: configuration, maxConnections: 1, logger: TestDatabase.logger)
        let clock = ContinuousClock()
        func measure(_ body: (Int64) async throws -> [PostgresRow]) async throws -> Double {
            for value in 0..<50 { _ = try await body(Int64(value)) }
            let began = clock.now
            var sum: Int64 = 0
            for value in 0..<executions { sum += try await body(Int64(value))[0].decode(0, as: Int64.self) }
            let elapsed = clock.now - began
            #expect(sum == Int64(executions) * Int64(executions + 1) / 2)
            return (Double(elapsed.components.seconds) * 1e6 + Double(elapsed.components.attoseconds) / 1e12) / Double(executions)
        }
        var directTimes: [Double] = []
        var pooledTimes: [Double] = []
        // Alternating rounds, best of each: the machine is shared, so the minimum is the
        // figure least disturbed by other load.
        for _ in 0..<5 {
            directTimes.append(try await measure { try await direct.query("SELECT \($0) + 1") })
            pooledTimes.append(try await measure { try await pool.query("SELECT \($0) + 1") })
        }
        print(String(
            format: "pool overhead: %d executions, direct connection %.1f µs, one-connection pool %.1f µs per statement",
            executions, directTimes.min() ?? 0, pooledTimes.min() ?? 0))
        await direct.close()
        await pool.close()
    }
}
