import Foundation
import ScorecastLogging
@testable import Postgres
import TestSupport
import Testing

@Suite struct EmbeddedPostgresRestartTests {
    private let logger = Logger(label: "embedded-restart-test", level: .info, sink: MemorySink())

    /// Where the descriptors of `pid` lead (files, `socket:[…]`, `pipe:[…]`).
    static func descriptorTargets(of pid: Int32) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").compactMap {
            try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/fd/\($0)")
        }
    }

    @Test("the postmaster holds none of the descriptors of the process that started it")
    func thePostmasterInheritsNoDescriptor() async throws {
        let state = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("scorecast-fds-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: state, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: state) }
        // A file this process holds without close-on-exec, as a C library might.
        let marker = state.appendingPathComponent("held-by-the-parent").path
        let held = open(marker, O_RDWR | O_CREAT, 0o600)
        #expect(held > 2)
        defer { close(held) }
        let server = EmbeddedPostgres(stateDirectory: state, durable: false, logger: logger)
        defer { server.stop() }
        _ = try await server.start()
        let postmaster = try #require(EmbeddedPostgres.readPidFile(ClusterLayout(root: state.appendingPathComponent("postgres")).pidFile)).pid
        let targets = try Self.descriptorTargets(of: postmaster)
        #expect(!targets.isEmpty)
        #expect(!targets.contains(marker), "\(targets)")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(held)") == marker, "the parent holds it")
    }

    @Test("after kill -9 of its postmaster the cluster says it stopped, and restart brings it back with its data")
    func restartAfterTheKillOfThePostmaster() async throws {
        let state = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("scorecast-restart-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: state) }
        let server = EmbeddedPostgres(stateDirectory: state, logger: logger)
        defer { server.stop() }
        let configuration = try await server.start()
        let connection = try await PostgresConnection.connect(configuration: configuration, logger: logger)
        try await connection.execute("CREATE TABLE kept (id int)")
        try await connection.execute("INSERT INTO kept VALUES (1), (2), (3)")
        await connection.close()
        let postmaster = try #require(EmbeddedPostgres.readPidFile(ClusterLayout(root: state.appendingPathComponent("postgres")).pidFile)).pid
        #expect(server.condition() == .running)

        #expect(kill(postmaster, SIGKILL) == 0)
        try await eventually("the postmaster is seen gone", every: .milliseconds(20)) { server.condition() != .running }
        #expect(server.condition() == .stopped(postmasterPID: postmaster))
        #expect(server.stopReport() == "the postmaster is gone and its log says nothing (killed?)")

        // Until the killed server's backends have gone, its shared memory is in use and a start
        // fails: the supervisor retries, and so does this test.
        try await eventually("the cluster restarts", every: .milliseconds(200)) {
            (try? await server.restart()) != nil
        }
        #expect(server.condition() == .running)
        let again = try await PostgresConnection.connect(configuration: configuration, logger: logger)
        let rows = try await again.query("SELECT count(*) AS n FROM kept")
        await again.close()
        #expect(try rows[0].decode("n", as: Int.self) == 3)
    }
}
