import Foundation
import Postgres
import Testing
import TestSupport

/// Two Postgres clusters of one test's own, a primary and a standby in synchronous streaming
/// replication (a commit is acknowledged once the standby has it), both on TCP 127.0.0.1:
/// what a highly available deployment runs, small enough for a test. The test may crash the
/// primary and promote the standby, as a failover manager would.
///
/// Made with Debian's tools as the platform notes describe: `initdb`, `pg_basebackup -R`,
/// `pg_ctl` (through `runuser -u postgres` when the tests run as root).
struct ReplicatedPostgres {
    let root: URL
    let primaryPort: Int
    let standbyPort: Int
    private let binaries: URL

    /// Both servers, primary first, as libpq's multi-host URL names them: libpq picks the one
    /// that takes writes.
    var multiHostURL: String {
        "postgresql://postgres@127.0.0.1:\(primaryPort),127.0.0.1:\(standbyPort)/postgres?target_session_attrs=read-write"
    }

    var primaryData: String { root.appendingPathComponent("primary").path }
    var standbyData: String { root.appendingPathComponent("standby").path }

    /// Starts the pair, runs `body`, and removes both clusters afterwards.
    static func with(_ body: (ReplicatedPostgres) async throws -> Void) async throws {
        let root = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("scorecast-failover-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }
        let pair = ReplicatedPostgres(
            root: root, primaryPort: try FreePort.find(), standbyPort: try FreePort.find(),
            binaries: URL(fileURLWithPath: "/usr/lib/postgresql/15/bin"))
        if getuid() == 0 { _ = try await ExternalTool.require("chown", ["postgres:postgres", root.path]) }
        do {
            try await pair.start()
            try await body(pair)
        } catch {
            await pair.stopBoth()
            throw error
        }
        await pair.stopBoth()
    }

    /// Crashes the primary (`pg_ctl stop -m immediate`: no shutdown checkpoint, as a lost machine).
    func crashPrimary() async throws {
        try await tool("pg_ctl", ["-D", primaryData, "-m", "immediate", "-w", "stop"])
    }

    /// Promotes the standby to primary and waits until it takes writes.
    func promoteStandby() async throws {
        try await tool("pg_ctl", ["-D", standbyData, "-w", "promote"])
    }

    /// A configuration reaching one server alone.
    func configuration(port: Int) -> PostgresConfiguration {
        PostgresConfiguration(host: "127.0.0.1", port: port, user: "postgres", database: "postgres", sslMode: "disable")
    }

    private func start() async throws {
        try await tool("initdb", ["-D", primaryData, "--auth=trust", "-U", "postgres", "-E", "UTF8", "--locale=C.UTF-8"])
        try append(to: primaryData + "/postgresql.conf", """
            listen_addresses = '127.0.0.1'
            port = \(primaryPort)
            unix_socket_directories = ''
            synchronous_standby_names = '*'
            synchronous_commit = on
            fsync = off
            """)
        try await tool("pg_ctl", ["-D", primaryData, "-l", root.appendingPathComponent("primary.log").path, "-w", "start"])
        try await tool("pg_basebackup", [
            "-h", "127.0.0.1", "-p", String(primaryPort), "-U", "postgres", "-D", standbyData, "-R", "-X", "stream", "-c", "fast",
        ])
        // The standby's own port; and once promoted it has no standby of its own to wait for.
        try append(to: standbyData + "/postgresql.auto.conf", """
            port = \(standbyPort)
            synchronous_standby_names = ''
            """)
        try await tool("pg_ctl", ["-D", standbyData, "-l", root.appendingPathComponent("standby.log").path, "-w", "start"])
        let primary = try await PostgresConnection.connect(configuration: configuration(port: primaryPort), logger: TestDatabase.logger)
        do {
            try await eventually("the standby replicates synchronously") {
                try await primary.query("SELECT 1 FROM pg_stat_replication WHERE sync_state = 'sync' AND state = 'streaming'").count == 1
            }
        } catch {
            await primary.close()
            throw error
        }
        await primary.close()
    }

    private func stopBoth() async {
        for data in [primaryData, standbyData] where FileManager.default.fileExists(atPath: data + "/postmaster.pid") {
            _ = try? await tool("pg_ctl", ["-D", data, "-m", "immediate", "-w", "stop"])
        }
    }

    private func append(to path: String, _ lines: String) throws {
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        defer { try? handle.close() }
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(("\n" + lines + "\n").utf8))
    }

    /// Runs one of the server's programs, as `postgres` when the tests run as root (they refuse root).
    @discardableResult
    private func tool(_ name: String, _ arguments: [String]) async throws -> String {
        let executable = binaries.appendingPathComponent(name).path
        let command = getuid() == 0 ? ["/usr/sbin/runuser", "-u", "postgres", "--", executable] : [executable]
        // In a folder `postgres` may enter (the test's own may be under a private home).
        let result = try await ExternalTool.run(command[0], Array(command.dropFirst()) + arguments, currentDirectory: root)
        guard result.succeeded else {
            throw TestSupportError("\(name) \(arguments.joined(separator: " ")) failed (\(result.status)): \(result.stderr)")
        }
        return result.stdout
    }
}
