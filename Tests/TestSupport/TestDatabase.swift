import Foundation
import ScorecastLogging
import Postgres
import Synchronization

/// A Postgres for tests: `SCORECAST_TEST_DATABASE_URL` when set, else one `EmbeddedPostgres`
/// per test process (in the system temp folder, stopped and removed at exit).
/// Each test takes a schema of its own with `makeSchema()`, so tests are independent and run
/// in parallel.
///
/// ```swift
/// let config = try await TestDatabase.shared().makeSchema()
/// let pool = PostgresPool(configuration: config, maxConnections: 4, logger: TestDatabase.logger)
/// … await pool.close()
/// ```
public final class TestDatabase: Sendable {
    /// The configuration of the database itself (no schema of its own).
    public let configuration: PostgresConfiguration

    /// A quiet logger for database tests (warnings and worse).
    public static let logger = Logger(label: "test-postgres", level: .warning)

    private enum Startup {
        case idle
        case starting([CheckedContinuation<TestDatabase, Error>])
        case ready(TestDatabase)
    }

    private static let startup = Mutex(Startup.idle)
    /// The embedded server of this process, stopped by the `atexit` handler.
    private static let embedded = Mutex<EmbeddedPostgres?>(nil)

    private init(configuration: PostgresConfiguration) {
        self.configuration = configuration
    }

    /// A test database on a server the caller runs (e.g. a cluster a fault test stops).
    public static func on(_ configuration: PostgresConfiguration) -> TestDatabase {
        TestDatabase(configuration: configuration)
    }

    /// The process's test database, started on first use. Concurrent callers wait for the same
    /// start; a failed start is retried by the next caller.
    public static func shared() async throws -> TestDatabase {
        enum Next { case ready(TestDatabase), wait, start }
        let next: Next = startup.withLock { state in
            switch state {
            case .ready(let database): return .ready(database)
            case .starting: return .wait
            case .idle:
                state = .starting([])
                return .start
            }
        }
        switch next {
        case .ready(let database):
            return database
        case .wait:
            return try await withCheckedThrowingContinuation { continuation in
                let database: TestDatabase? = startup.withLock { state in
                    switch state {
                    case .ready(let database):
                        return database
                    case .starting(var waiting):
                        waiting.append(continuation)
                        state = .starting(waiting)
                        return nil
                    case .idle:
                        continuation.resume(throwing: PostgresError(.connectionFailed, "the test database failed to start"))
                        return nil
                    }
                }
                if let database { continuation.resume(returning: database) }
            }
        case .start:
            let result: Result<TestDatabase, Error>
            do {
                result = .success(try await start())
            } catch {
                result = .failure(error)
            }
            let waiting: [CheckedContinuation<TestDatabase, Error>] = startup.withLock { state in
                guard case .starting(let waiting) = state else { return [] }
                if case .success(let database) = result { state = .ready(database) } else { state = .idle }
                return waiting
            }
            waiting.forEach { $0.resume(with: result) }
            return try result.get()
        }
    }

    private static func start() async throws -> TestDatabase {
        if let url = ProcessInfo.processInfo.environment["SCORECAST_TEST_DATABASE_URL"], !url.isEmpty {
            var configuration = try PostgresConfiguration(connectionString: url)
            configuration.applicationName = "scorecast-tests"
            return TestDatabase(configuration: configuration)
        }
        // A cluster of this process's own, removed at exit: test processes running side by side
        // (several checkouts on one machine) can never stop or clean each other's database.
        let state = URL(fileURLWithPath: NSTemporaryDirectory())
            .appendingPathComponent("scorecast-test-pg-\(getuid())-\(getpid())")
        // Every suite of a test process runs at once against this one cluster, each with pools
        // of its own: 200 connections (the server's setting) ran out once as suites were added.
        let server = EmbeddedPostgres(
            stateDirectory: state, durable: false, settings: [try PostgresServerSetting(name: "max_connections", value: "500")],
            logger: logger)
        var configuration = try await server.start()
        embedded.withLock { $0 = server }
        privateStateDirectory.withLock { $0 = state }
        atexit {
            TestDatabase.embedded.withLock { $0?.stop() }
            if let state = TestDatabase.privateStateDirectory.withLock({ $0 }) {
                try? FileManager.default.removeItem(at: state)
            }
        }
        configuration.applicationName = "scorecast-tests"
        return TestDatabase(configuration: configuration)
    }

    private static let privateStateDirectory = Mutex<URL?>(nil)

    /// A new, empty schema of this test's own; the returned configuration searches it first,
    /// so unqualified table names land there.
    public func makeSchema() async throws -> PostgresConfiguration {
        let name = "t_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(16).lowercased()
        let connection = try await PostgresConnection.connect(configuration: configuration, logger: Self.logger)
        do {
            try await connection.execute("CREATE SCHEMA \(identifier: name)")
        } catch {
            await connection.close()
            throw error
        }
        await connection.close()
        var schemaConfiguration = configuration
        schemaConfiguration.searchPath = [name]
        return schemaConfiguration
    }

    /// A pool on a new schema of this test's own.
    public func makePool(
        maxConnections: Int = 4, leaseTimeout: Duration = .seconds(10), logger: Logger = TestDatabase.logger
    ) async throws -> PostgresPool {
        PostgresPool(
            configuration: try await makeSchema(), maxConnections: maxConnections, leaseTimeout: leaseTimeout,
            logger: logger)
    }

    /// Runs `body` with a pool from ``makePool(maxConnections:leaseTimeout:logger:)`` and closes
    /// the pool afterwards, whatever happens.
    public func withPool(maxConnections: Int = 4, _ body: (PostgresPool) async throws -> Void) async throws {
        let pool = try await makePool(maxConnections: maxConnections)
        do {
            try await body(pool)
        } catch {
            await pool.close()
            throw error
        }
        await pool.close()
    }
}
