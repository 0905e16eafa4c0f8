import Foundation
import ScorecastLogging
@testable import Postgres
import Testing
import TestSupport

/// The embedded server's settings: scorecast's workload settings reach a durable server,
/// an operator's extra settings override them, and bad ones are refused before anything
/// starts or leave nothing running.
@Suite struct EmbeddedPostgresSettingsTests {
    private let logger = Logger(label: "embedded-settings-test", level: .info, sink: MemorySink())

    private func temporaryState() -> URL {
        URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("scorecast-embedded-\(UUID().uuidString)")
    }

    /// `SHOW name` for each of `names`, on the server `configuration` reaches.
    private func show(_ names: [String], _ configuration: PostgresConfiguration) async throws -> [String: String] {
        let connection = try await PostgresConnection.connect(configuration: configuration, logger: logger)
        let rows = try await connection.query("SELECT name, current_setting(name) AS value FROM unnest(\(names)::text[]) AS s(name)")
        await connection.close()
        return try Dictionary(uniqueKeysWithValues: rows.map { (try $0.decode("name", as: String.self), try $0.decode("value", as: String.self)) })
    }

    @Test func aDurableServerRunsWithTheWorkloadSettingsAndStaysDurable() async throws {
        let state = temporaryState()
        defer { try? FileManager.default.removeItem(at: state) }
        let server = EmbeddedPostgres(stateDirectory: state, durable: true, logger: logger)
        defer { server.stop() }
        let values = try await show(
            [
                "fsync", "synchronous_commit", "full_page_writes", "commit_delay", "commit_siblings", "wal_compression", "wal_buffers",
                "max_wal_size", "min_wal_size", "checkpoint_timeout", "shared_buffers", "autovacuum_naptime", "server_version_num",
            ],
            try await server.start())

        #expect(values["fsync"] == "on")
        #expect(values["synchronous_commit"] == "on")
        #expect(values["full_page_writes"] == "on")
        #expect(values["commit_delay"] == "0")
        #expect(values["wal_buffers"] == "16MB")
        #expect(values["max_wal_size"] == "4GB")
        #expect(values["min_wal_size"] == "1GB")
        #expect(values["checkpoint_timeout"] == "15min")
        #expect(values["shared_buffers"] == "128MB")
        #expect(values["autovacuum_naptime"] == "5s")
        let major = try #require(values["server_version_num"].flatMap(Int.init)) / 10_000
        let flags = try PostgresInstallation.find().configureFlags()
        #expect(values["wal_compression"] == EmbeddedPostgres.walCompression(majorVersion: major, configureFlags: flags))
        // Debian 12's Postgres 15 (what CI and the benchmark run) is built with lz4.
        if major >= 15, flags?.contains("--with-lz4") == true { #expect(values["wal_compression"] == "lz4") }
    }

    @Test func extraSettingsComeAfterScorecastsAndWin() async throws {
        let state = temporaryState()
        defer { try? FileManager.default.removeItem(at: state) }
        // A quote and a backslash reach the server as written: the line is quoted, not broken.
        let name = #"bench's \ cluster"#
        let server = EmbeddedPostgres(
            stateDirectory: state, durable: false,
            settings: [try PostgresServerSetting(assignment: "commit_delay=0"), try PostgresServerSetting(assignment: "Cluster_Name=" + name)],
            logger: logger)
        defer { server.stop() }
        let values = try await show(["commit_delay", "cluster_name", "fsync"], try await server.start())
        #expect(values["commit_delay"] == "0")
        #expect(values["cluster_name"] == name)
        #expect(values["fsync"] == "off")
    }

    /// The error `assignment` is refused with (its message), or nil when it is accepted.
    private func refusal(_ assignment: String) -> String? {
        do {
            _ = try PostgresServerSetting.list(assignment)
            return nil
        } catch {
            return error.message
        }
    }

    @Test func scorecastsOwnSettingsAndMalformedOnesAreRefusedByName() {
        for reserved in ["port=6543", "listen_addresses=*", "unix_socket_directories=/tmp", "Unix_Socket_Permissions=0777", "hba_file=/tmp/x"] {
            let name = reserved.split(separator: "=")[0].lowercased()
            #expect(refusal(reserved) == "the embedded Postgres's \(name) is scorecast's own and cannot be set")
        }
        #expect(refusal("commit_delay=0; port=1") == "the embedded Postgres's port is scorecast's own and cannot be set")
        #expect(refusal("work-mem=8MB")?.hasPrefix("\"work-mem\" is not a Postgres setting name") == true)
        #expect(refusal("1st=8MB")?.hasPrefix("\"1st\" is not a Postgres setting name") == true)
        #expect(refusal("cluster_name=a\nport = 1") == "the value of cluster_name holds a newline or another control character")
        #expect(refusal("commit_delay") == "\"commit_delay\" is not name=value")
        #expect(refusal("commit_delay=0;work_mem=8MB") == nil)
    }

    @Test func aListIsSplitOnSemicolonsAndEachLineIsQuoted() throws {
        let settings = try PostgresServerSetting.list(" commit_delay = 0 ;shared_preload_libraries=pg_stat_statements,auto_explain;; log_line_prefix=%m [%p] it's ")
        #expect(settings.map(\.description) == ["commit_delay=0", "shared_preload_libraries=pg_stat_statements,auto_explain", "log_line_prefix=%m [%p] it's"])
        #expect(
            settings.map(\.configurationLine) == [
                "commit_delay = '0'", "shared_preload_libraries = 'pg_stat_statements,auto_explain'", "log_line_prefix = '%m [%p] it''s'",
            ])
        #expect(try PostgresServerSetting(assignment: #"cluster_name=a\b"#).configurationLine == #"cluster_name = 'a\\b'"#)
        let buffers = try PostgresServerSetting.list("wal_buffers=8MB")
        let withBuffers = EmbeddedPostgres.settingsText(socketDirectory: "/s", durable: true, walCompression: "lz4", extra: buffers)
        #expect(withBuffers.split(separator: "\n").filter { $0.hasPrefix("wal_buffers") } == ["wal_buffers = 16MB", "wal_buffers = '8MB'"])
    }

    @Test func walCompressionIsTheBestTheServerSupports() {
        #expect(EmbeddedPostgres.walCompression(majorVersion: 15, configureFlags: "'--with-lz4' '--with-zstd'") == "lz4")
        #expect(EmbeddedPostgres.walCompression(majorVersion: 16, configureFlags: "'--with-openssl'") == "pglz")
        #expect(EmbeddedPostgres.walCompression(majorVersion: 15, configureFlags: nil) == "pglz")
        #expect(EmbeddedPostgres.walCompression(majorVersion: 14, configureFlags: "'--with-lz4'") == "on")
        #expect(EmbeddedPostgres.walCompression(majorVersion: nil, configureFlags: "'--with-lz4'") == "on")
    }

    @Test func aValueTheServerRefusesFailsTheStartByNameAndLeavesNothingRunning() async throws {
        let state = temporaryState()
        defer { try? FileManager.default.removeItem(at: state) }
        let bad = EmbeddedPostgres(
            stateDirectory: state, durable: false, settings: [try PostgresServerSetting(assignment: "commit_delay=lots")], logger: logger)
        let error = await #expect(throws: PostgresError.self) { _ = try await bad.start() }
        #expect(error?.code == .embeddedServerFailed)
        #expect(error?.message.contains(#"invalid value for parameter "commit_delay": "lots""#) == true)
        #expect(!bad.isRunning)
        let layout = ClusterLayout.inside(stateDirectory: state)
        #expect(!FileManager.default.fileExists(atPath: layout.pidFile.path))

        // The lock was released and no server holds the folder: a good start follows. A process
        // another test forks at that moment holds a copy of the lock's descriptor until it
        // execs (close-on-exec), so the lock is awaited rather than expected at once; one this
        // start kept would never come free.
        let lockPath = state.appendingPathComponent("postgres.lock").path
        try await eventually("the failed start's lock is free") {
            let descriptor = open(lockPath, O_RDWR)
            defer { if descriptor >= 0 { close(descriptor) } }
            return descriptor < 0 || flock(descriptor, LOCK_EX | LOCK_NB) == 0
        }
        let good = EmbeddedPostgres(stateDirectory: state, durable: false, logger: logger)
        defer { good.stop() }
        #expect(try await show(["wal_buffers"], try await good.start())["wal_buffers"] == "16MB")
    }
}
