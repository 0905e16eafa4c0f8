import Foundation
import Postgres
import Testing
import TestSupport

#if canImport(Glibc)
import Glibc
#endif

/// A Postgres cluster of the test's own with Debian's `pgbouncer` (1.18) in front of it in
/// transaction mode, listening on 127.0.0.1. The shared test database is never touched: the
/// cluster's role gets the settings scorecast no longer sends through the pooler, as the
/// docs/operations.md's "Behind a connection pooler" says.
struct PgBouncerBed {
    /// The cluster itself (its Unix socket): the direct URL.
    let direct: PostgresConfiguration
    /// The same database through PgBouncer.
    let pooled: PostgresConfiguration

    /// The statement timeout set on the role, as `current_setting` shows it.
    static let roleStatementTimeout = "30s"

    /// Runs `body` with the cluster and PgBouncer running; the role's `DateStyle` is `dateStyle`.
    static func with(dateStyle: String = "ISO, MDY", _ body: (PgBouncerBed) async throws -> Void) async throws {
        let root = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("pgbouncer-bed-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }
        let cluster = EmbeddedPostgres(stateDirectory: root.appendingPathComponent("pg"), durable: false, logger: TestDatabase.logger)
        let direct = try await cluster.start()
        defer { cluster.stop() }
        let user = try #require(direct.user)
        let admin = try await PostgresConnection.connect(configuration: direct, logger: TestDatabase.logger)
        do {
            // What the startup packet carried before, the role carries now (ISO dates are the
            // server's default already; the timeout is not).
            try await admin.executeScript(unsafeSQL: """
                ALTER ROLE CURRENT_USER SET statement_timeout = '\(roleStatementTimeout)';
                ALTER ROLE CURRENT_USER SET DateStyle = '\(dateStyle)';
                """)
        } catch {
            await admin.close()
            throw error
        }
        await admin.close()

        let port = try FreePort.find()
        let configuration = root.appendingPathComponent("pgbouncer.ini")
        let users = root.appendingPathComponent("userlist.txt")
        try "\"\(user)\" \"\"\n".write(to: users, atomically: true, encoding: .utf8)
        try """
            [databases]
            \(try #require(direct.database)) = host=\(try #require(direct.host)) port=\(try #require(direct.port)) user=\(user)

            [pgbouncer]
            listen_addr = 127.0.0.1
            listen_port = \(port)
            unix_socket_dir =
            auth_type = trust
            auth_file = \(users.path)
            pool_mode = transaction
            default_pool_size = 8
            max_client_conn = 200

            """.write(to: configuration, atomically: true, encoding: .utf8)

        // It refuses to run as root; the cluster's socket belongs to `postgres` anyway.
        let server = try ServerProcess(
            "pgbouncer", "/usr/sbin/pgbouncer", (getuid() == 0 ? ["-u", "postgres"] : []) + [configuration.path])
        defer { server.stop() }

        var pooled = direct
        pooled.host = "127.0.0.1"
        pooled.port = port
        pooled.statementCacheCapacity = 0
        pooled.sendsSessionSettings = false
        try await server.waitUntilListening(on: port)
        try await body(PgBouncerBed(direct: direct, pooled: pooled))
    }
}
