import Foundation
import ScorecastLogging
import Postgres
import TestSupport

/// A Postgres cluster of one fault test's own, which the test may freeze (SIGSTOP of the
/// postmaster and every backend) or stop, as an operator's mistake or a stuck disk would.
/// Never the shared test database: other tests run beside this one.
final class StoppablePostgres: Sendable {
    let server: EmbeddedPostgres
    let configuration: PostgresConfiguration
    let state: URL
    /// The data directory, whose `postmaster.pid` names the postmaster.
    private let dataDirectory: String

    private init(server: EmbeddedPostgres, configuration: PostgresConfiguration, state: URL, dataDirectory: String) {
        self.server = server
        self.configuration = configuration
        self.state = state
        self.dataDirectory = dataDirectory
    }

    /// Starts a new cluster, runs `body` with it, and removes it afterwards.
    static func with(_ body: (StoppablePostgres) async throws -> Void) async throws {
        let state = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("scorecast-fault-pg-\(UUID().uuidString.prefix(8))")
        let server = EmbeddedPostgres(stateDirectory: state, durable: false, logger: Logger(label: "fault-postgres", level: .warning))
        let configuration = try await server.start()
        defer {
            server.stop()
            try? FileManager.default.removeItem(at: state)
        }
        let connection = try await PostgresConnection.connect(configuration: configuration, logger: TestDatabase.logger)
        let dataDirectory: String = try await connection.query("SELECT current_setting('data_directory') AS d")[0].decode("d")
        await connection.close()
        let postgres = StoppablePostgres(server: server, configuration: configuration, state: state, dataDirectory: dataDirectory)
        do {
            try await body(postgres)
        } catch {
            postgres.thaw()
            throw error
        }
        postgres.thaw()
    }

    /// The postmaster and its children (backends, background workers), by process id.
    func processes() throws -> [pid_t] {
        let pidFile = try String(contentsOfFile: dataDirectory + "/postmaster.pid", encoding: .utf8)
        guard let first = pidFile.split(separator: "\n").first, let postmaster = pid_t(first) else {
            throw TestSupportError("no postmaster pid in \(dataDirectory)/postmaster.pid")
        }
        var found = [postmaster]
        for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] {
            guard let pid = pid_t(entry), let stat = try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8),
                  let close = stat.lastIndex(of: ")")
            else { continue }
            // `pid (comm) state ppid …`: the fields after the command name.
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            if fields.count > 1, pid_t(fields[1]) == postmaster { found.append(pid) }
        }
        return found
    }

    /// Freezes the server: every process of it stops (SIGSTOP); connections stay open and
    /// nothing answers, not even a cancel request.
    func freeze() throws {
        for pid in try processes() { kill(pid, SIGSTOP) }
    }

    /// Lets a frozen server run again.
    func thaw() {
        for pid in (try? processes()) ?? [] { kill(pid, SIGCONT) }
    }
}
