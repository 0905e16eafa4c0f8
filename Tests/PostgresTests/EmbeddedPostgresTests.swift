import Foundation
import ScorecastLogging
@testable import Postgres
import TestSupport
import Testing

@Suite struct EmbeddedPostgresTests {
    private let logger = Logger(label: "embedded-test", level: .info, sink: MemorySink())

    private func count(_ configuration: PostgresConfiguration) async throws -> Int {
        let connection = try await PostgresConnection.connect(configuration: configuration, logger: logger)
        let rows = try await connection.query("SELECT count(*) AS n FROM kept")
        await connection.close()
        return try rows[0].decode("n", as: Int.self)
    }

    @Test func startsStopsAndRestartsReusingTheCluster() async throws {
        let state = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("scorecast-embedded-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: state) }
        let sink = MemorySink()
        let server = EmbeddedPostgres(stateDirectory: state, durable: false, logger: Logger(label: "e", level: .info, sink: sink))

        let first = try await server.start()
        #expect(server.isRunning)
        #expect(first.host == state.appendingPathComponent("postgres/run").path)
        #expect(first.database == "scorecast")
        let connection = try await PostgresConnection.connect(configuration: first, logger: logger)
        try await connection.execute("CREATE TABLE kept (id int)")
        try await connection.execute("INSERT INTO kept VALUES (1), (2)")
        let listen = try await connection.query("SELECT current_setting('listen_addresses') AS a, current_setting('unix_socket_directories') AS s")
        #expect(try listen[0].decode("a", as: String.self) == "")
        #expect(try listen[0].decode("s", as: String.self) == state.appendingPathComponent("postgres/run").path)
        await connection.close()
        // Starting again while running answers the same server.
        #expect(try await server.start().port == first.port)

        // A second handle on the same folder (another process's CLI command) shares the
        // running server without owning it: its stop() leaves the server up.
        let sharer = EmbeddedPostgres(stateDirectory: state, durable: false, logger: logger)
        #expect(try await sharer.start().port == first.port)
        #expect(!sharer.isRunning)
        sharer.stop()
        #expect(try await count(first) == 2)

        server.stop()
        server.stop()
        #expect(!server.isRunning)
        let dataDirectory = state.appendingPathComponent("postgres/data")
        #expect(!FileManager.default.fileExists(atPath: dataDirectory.appendingPathComponent("postmaster.pid").path))
        await #expect(throws: PostgresError.self) { _ = try await PostgresConnection.connect(configuration: first, logger: logger) }

        // Restart: same cluster, data kept, no second initdb.
        let second = try await server.start()
        #expect(try await count(second) == 2)
        server.stop()
        #expect(sink.lines.filter { $0.contains("creating a new cluster") }.count == 1)

        // A crash leaves a postmaster.pid naming a process that is gone: it is cleared.
        let stalePID = try await deadPID()
        try "\(stalePID)\n\(dataDirectory.path)\n0\n\(second.port ?? 0)\n".write(
            to: dataDirectory.appendingPathComponent("postmaster.pid"), atomically: true, encoding: .utf8)
        let rival = EmbeddedPostgres(stateDirectory: state, durable: false, logger: logger)
        let third = try await rival.start()
        #expect(try await count(third) == 2)
        #expect(rival.isRunning)

        // A server left running by a process that died (its lock released) is stopped and
        // replaced by the next owner.
        let leftoverPID = try #require(EmbeddedPostgres.readPidFile(dataDirectory.appendingPathComponent("postmaster.pid"))?.pid)
        rival.abandonForTesting()
        let heir = EmbeddedPostgres(stateDirectory: state, durable: false, logger: Logger(label: "e", level: .info, sink: sink))
        let fourth = try await heir.start()
        #expect(try await count(fourth) == 2)
        #expect(!EmbeddedPostgres.isPostgres(pid: leftoverPID, dataDirectory: dataDirectory))
        #expect(sink.lines.contains { $0.contains("left running by an earlier process") })
        heir.stop()
    }

    // MARK: - Who gets in

    /// `psql … -c 'SELECT count(*) FROM kept'` as `user` (nil: this process's user).
    private func psql(as user: String?, _ connection: [String]) async throws -> ProcessRunner.Output {
        try await run("/usr/bin/psql", connection + ["-U", "postgres", "-d", "scorecast", "-w", "-Atc", "SELECT count(*) FROM kept"], asUser: user)
    }

    /// `ProcessRunner.run` on a thread of its own: it blocks until the program exits, and the
    /// tests' concurrency pool must not wait with it.
    private func run(_ executable: String, _ arguments: [String], asUser user: String?) async throws -> ProcessRunner.Output {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(with: Result { () throws(PostgresError) in try ProcessRunner.run(executable, arguments, asUser: user) })
            }
        }
    }

    @Test(.enabled(if: getuid() == 0, "needs root to act as another local user"))
    func anotherLocalUserCannotConnect() async throws {
        let state = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("scorecast-embedded-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: state) }
        let server = EmbeddedPostgres(stateDirectory: state, durable: false, logger: logger)
        defer { server.stop() }
        let configuration = try await server.start()
        let socket = try #require(configuration.host)
        let connection = try await PostgresConnection.connect(configuration: configuration, logger: logger)
        try await connection.execute("CREATE TABLE kept (id int)")
        await connection.close()

        // The owner gets in through the socket; `nobody`, with the same command, does not.
        let owner = try await psql(as: nil, ["-h", socket, "-p", "\(configuration.port ?? 0)"])
        #expect(owner.status == 0 && owner.text.trimmingCharacters(in: .whitespacesAndNewlines) == "0")
        let stranger = try await psql(as: "nobody", ["-h", socket, "-p", "\(configuration.port ?? 0)"])
        #expect(stranger.status != 0)
        #expect(stranger.text.contains("Permission denied"))
        var info = stat()
        #expect(stat(socket, &info) == 0 && info.st_mode & 0o777 == 0o700)
    }

    @Test(.enabled(if: getuid() == 0, "needs root to act as another local user"))
    func aClusterOfThePreviousVersionIsUpgradedInPlace() async throws {
        let state = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("scorecast-embedded-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: state) }
        let layout = ClusterLayout(root: state.appendingPathComponent("postgres"))
        let first = EmbeddedPostgres(stateDirectory: state, durable: false, logger: logger)
        let connection = try await PostgresConnection.connect(configuration: try await first.start(), logger: logger)
        try await connection.execute("CREATE TABLE kept (id int)")
        try await connection.execute("INSERT INTO kept VALUES (1), (2)")
        await connection.close()
        first.stop()

        // What the previous version left: initdb's `trust` rules for TCP and a server on
        // 127.0.0.1. Started that way, any local user reads the data.
        let port = try FreePort.find()
        try """
            local all all trust
            host all all 127.0.0.1/32 trust
            host all all ::1/128 trust

            """.write(to: layout.accessRulesFile, atomically: false, encoding: .utf8)
        try """
            listen_addresses = '127.0.0.1'
            port = \(port)
            unix_socket_directories = '\(layout.socketDirectory.path)'

            """.write(to: layout.settingsFile, atomically: false, encoding: .utf8)
        let pgCtl = try PostgresInstallation.find().pgCtl
        let started = try await run(pgCtl, ["-D", layout.data.path, "-l", layout.logFile.path, "-w", "start"], asUser: "postgres")
        #expect(started.status == 0)
        let before = try await psql(as: "nobody", ["-h", "127.0.0.1", "-p", "\(port)"])
        _ = try await run(pgCtl, ["-D", layout.data.path, "-w", "stop"], asUser: "postgres")
        #expect(before.status == 0 && before.text.trimmingCharacters(in: .whitespacesAndNewlines) == "2")

        // This version's start upgrades it: rows kept, TCP closed, the socket private.
        let upgraded = EmbeddedPostgres(stateDirectory: state, durable: false, logger: logger)
        defer { upgraded.stop() }
        let configuration = try await upgraded.start()
        #expect(try await count(configuration) == 2)
        let tcp = try await psql(as: "nobody", ["-h", "127.0.0.1", "-p", "\(port)"])
        #expect(tcp.status != 0 && tcp.text.contains("Connection refused"))
        let socket = try await psql(as: "nobody", ["-h", configuration.host ?? "", "-p", "\(configuration.port ?? 0)"])
        #expect(socket.status != 0 && socket.text.contains("Permission denied"))
        #expect(try String(contentsOf: layout.accessRulesFile, encoding: .utf8) == EmbeddedPostgres.accessRules)
    }

    /// The pid of a process that has exited and been reaped.
    private func deadPID() async throws -> pid_t {
        let output = try ProcessRunner.run("/bin/sh", ["-c", "echo $$"])
        return try #require(pid_t(output.text))
    }

    @Test(.enabled(if: getuid() == 0, "only root runs the server as another user"))
    func asRootTheClusterMovesWhereThePostgresUserCanReachIt() async throws {
        let base = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("scorecast-private-\(UUID().uuidString)")
        let state = base.appendingPathComponent("state")
        try FileManager.default.createDirectory(at: state, withIntermediateDirectories: true)
        #expect(chmod(base.path, 0o700) == 0)
        let sink = MemorySink()
        let server = EmbeddedPostgres(stateDirectory: state, durable: false, logger: Logger(label: "e", level: .info, sink: sink))
        defer {
            server.stop()
            try? FileManager.default.removeItem(at: base)
        }
        let configuration = try await server.start()
        let connection = try await PostgresConnection.connect(configuration: configuration, logger: logger)
        let rows = try await connection.query("SELECT current_setting('data_directory') AS d")
        await connection.close()
        let data = try rows[0].decode("d", as: String.self)
        let root = URL(fileURLWithPath: data).deletingLastPathComponent()
        defer { try? FileManager.default.removeItem(at: root) }
        #expect(root.deletingLastPathComponent().path == URL(fileURLWithPath: NSTemporaryDirectory()).standardizedFileURL.path)
        #expect(root.lastPathComponent.hasPrefix("scorecast-postgres-state-"))
        #expect(sink.lines.contains { $0.contains("cannot enter \(base.path)") && $0.contains(root.path) })
        // The folder is recorded in the state folder and used again by the next start.
        #expect(try String(contentsOf: state.appendingPathComponent("postgres-location"), encoding: .utf8) == root.path + "\n")
        server.stop()
        let again = EmbeddedPostgres(stateDirectory: state, durable: false, logger: logger)
        defer { again.stop() }
        let reconnected = try await PostgresConnection.connect(configuration: try await again.start(), logger: logger)
        let rowsAgain = try await reconnected.query("SELECT current_setting('data_directory') AS d")
        await reconnected.close()
        #expect(try rowsAgain[0].decode("d", as: String.self) == data)
    }

    @Test(.enabled(if: getuid() == 0, "only root runs the server as another user"))
    func aFallbackFolderAnotherUserMadeFirstNeitherBlocksNorHijacksTheStart() async throws {
        let base = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("scorecast-private-\(UUID().uuidString)")
        let state = base.appendingPathComponent("state")
        try FileManager.default.createDirectory(at: state, withIntermediateDirectories: true)
        #expect(chmod(base.path, 0o700) == 0)
        // What a local user could make before scorecast's first start: the folder earlier
        // versions named predictably, theirs and open to all.
        let squatted = URL(fileURLWithPath: NSTemporaryDirectory())
            .appendingPathComponent("scorecast-postgres-state-" + ClusterLayout.fnv1a(state.standardizedFileURL.path))
        try FileManager.default.createDirectory(at: squatted, withIntermediateDirectories: true)
        let nobody = try #require(getpwnam("nobody")).pointee
        #expect(chown(squatted.path, nobody.pw_uid, nobody.pw_gid) == 0 && chmod(squatted.path, 0o777) == 0)
        let sink = MemorySink()
        let server = EmbeddedPostgres(stateDirectory: state, durable: false, logger: Logger(label: "e", level: .info, sink: sink))
        defer {
            server.stop()
            try? FileManager.default.removeItem(at: base)
            try? FileManager.default.removeItem(at: squatted)
        }
        let connection = try await PostgresConnection.connect(configuration: try await server.start(), logger: logger)
        let rows = try await connection.query("SELECT current_setting('data_directory') AS d")
        await connection.close()
        let root = URL(fileURLWithPath: try rows[0].decode("d", as: String.self)).deletingLastPathComponent()
        defer { try? FileManager.default.removeItem(at: root) }
        #expect(root.path != squatted.path)
        #expect(try FileManager.default.contentsOfDirectory(atPath: squatted.path).isEmpty, "nothing of the cluster went into it")
        let postgresUID = try #require(getpwnam("postgres")).pointee.pw_uid
        var info = stat()
        #expect(lstat(root.path, &info) == 0 && info.st_uid == postgresUID && info.st_mode & 0o777 == 0o700)
        #expect(sink.lines.contains { $0.contains("not using \(squatted.path)") && $0.contains("uid \(nobody.pw_uid)") })
    }

    @Test func clusterLayoutFallsBackWhenTheServerUserCannotEnter() throws {
        let base = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("scorecast-layout-\(UUID().uuidString)")
        let locked = base.appendingPathComponent("locked")
        let state = locked.appendingPathComponent("project/.scorecast")
        try FileManager.default.createDirectory(at: state, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: base) }
        #expect(chmod(locked.path, 0o700) == 0)
        let owner = getuid()
        let stranger: uid_t = owner == 12345 ? 12346 : 12345
        #expect(ClusterLayout.firstUntraversableFolder(on: state, uid: stranger, groups: []) == locked.path)
        #expect(ClusterLayout.firstUntraversableFolder(on: state, uid: owner, groups: []) == nil)
        #expect(chmod(locked.path, 0o711) == 0)
        #expect(ClusterLayout.firstUntraversableFolder(on: state, uid: stranger, groups: []) == nil)

        #expect(ClusterLayout.inside(stateDirectory: state).root == state.appendingPathComponent("postgres"))
        let first = ClusterLayout.fallbackFolderName(stateDirectory: state, random: 0xabc)
        #expect(first == "scorecast-postgres-scorecast-abc")
        #expect(ClusterLayout.fallbackFolderName(stateDirectory: URL(fileURLWithPath: "/x/.."), random: 1) == "scorecast-postgres-state-1")
        var folder = stat()
        folder.st_mode = S_IFDIR | 0o700
        folder.st_uid = 70
        #expect(ClusterLayout.isPrivateFolder(folder, owner: 70))
        #expect(!ClusterLayout.isPrivateFolder(folder, owner: 71), "another user's")
        folder.st_mode = S_IFDIR | 0o777
        #expect(!ClusterLayout.isPrivateFolder(folder, owner: 70), "open to others")
        folder.st_mode = S_IFLNK | 0o700
        #expect(!ClusterLayout.isPrivateFolder(folder, owner: 70), "a link")
        #expect(ClusterLayout(root: URL(fileURLWithPath: "/tmp/x")).socketDirectory.path == "/tmp/x/run")
        let deep = ClusterLayout(root: URL(fileURLWithPath: "/tmp/" + String(repeating: "d", count: 100)))
        #expect(!deep.socketDirectoryIsInside)
        #expect(deep.socketDirectory.path.hasPrefix("/tmp/scorecast-pg-"))
        #expect(ClusterLayout.socketFits(in: deep.socketDirectory))
    }

    @Test func aMissingInstallationSaysHowToInstallIt() {
        do {
            _ = try PostgresInstallation.find(root: URL(fileURLWithPath: "/nonexistent-\(UUID().uuidString)"))
            Issue.record("found an installation where there is none")
        } catch {
            #expect(error.message.contains("apt-get install postgresql"))
        }
        #expect((try? PostgresInstallation.find())?.binDirectory.path.hasPrefix("/usr/lib/postgresql/") == true)
    }
}
