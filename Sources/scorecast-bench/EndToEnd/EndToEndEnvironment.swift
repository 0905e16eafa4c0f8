import ChildProcesses
import APNs
import Foundation
import Registry
import ScorecastLogging
import Postgres
import ServiceBase
import Synchronization
import JSON

/// Everything parts 3–5 share: a durable embedded Postgres (default fsync and synchronous
/// commit) with pg_stat_statements, the schema, the simulator as a process of its own, C apps,
/// G games with one channel per app each (created through the product's own registry against
/// the simulator), and a feed API key made with `scorecast keys create`.
final class EndToEndEnvironment: Sendable {
    /// The cluster.
    let postgres: EmbeddedPostgres
    /// A small pool for the benchmark's own queries.
    let pool: PostgresPool
    /// `SCORECAST_DATABASE_URL` for the processes.
    let databaseURL: String
    /// The simulator process.
    let simulator: SimulatorProcess
    /// The games' ids.
    let games: [String]
    /// Channels in total.
    let channels: Int
    /// The feed's API key.
    let apiKey: String
    /// The scorecast binary.
    let scorecast: String
    /// The run folder.
    let folder: String
    /// Channel creations that got no answer during setup and were tried again.
    let setupRetries: [String]

    private init(postgres: EmbeddedPostgres, pool: PostgresPool, databaseURL: String, simulator: SimulatorProcess,
                 games: [String], channels: Int, apiKey: String, scorecast: String, folder: String, setupRetries: [String]) {
        self.setupRetries = setupRetries
        self.postgres = postgres
        self.pool = pool
        self.databaseURL = databaseURL
        self.simulator = simulator
        self.games = games
        self.channels = channels
        self.apiKey = apiKey
        self.scorecast = scorecast
        self.folder = folder
    }

    /// The bundle id of app `index` (1-based).
    static func bundleID(_ index: Int) -> String { "com.scorecast.bench.app\(index)" }

    /// Builds the environment.
    /// `postgresSettings` go into the cluster's configuration after scorecast's own.
    static func make(folder: String, key: BenchKey, gameCount: Int, appCount: Int, scorecast: String,
                     postgresSettings: [PostgresServerSetting], logger: Logger) async throws -> EndToEndEnvironment {
        let quiet = Logger(label: "bench-setup", level: .warning)
        let postgres = EmbeddedPostgres(stateDirectory: URL(fileURLWithPath: folder + "/postgres"), durable: true,
                                        settings: postgresSettings, logger: quiet)
        // The cluster is not a child process: stop it on an interrupt and on every failure here.
        ChildRegistry.shared.onInterrupt { postgres.stop() }
        do {
            return try await prepare(postgres: postgres, folder: folder, key: key, gameCount: gameCount, appCount: appCount,
                                     scorecast: scorecast, postgresSettings: postgresSettings, quiet: quiet, logger: logger)
        } catch {
            postgres.stop()
            throw error
        }
    }

    private static func prepare(postgres: EmbeddedPostgres, folder: String, key: BenchKey, gameCount: Int, appCount: Int,
                                scorecast: String, postgresSettings: [PostgresServerSetting], quiet: Logger,
                                logger: Logger) async throws -> EndToEndEnvironment {
        var configuration = try await postgres.start()
        // pg_stat_statements must be preloaded: set it, then restart once.
        let setupPool = PostgresPool(configuration: configuration, maxConnections: 1, logger: quiet)
        _ = try await setupPool.execute("ALTER SYSTEM SET shared_preload_libraries = 'pg_stat_statements'")
        await setupPool.close()
        postgres.stop()
        configuration = try await postgres.start()
        let pool = PostgresPool(configuration: configuration, maxConnections: 8, logger: quiet)
        _ = try await pool.execute("CREATE EXTENSION IF NOT EXISTS pg_stat_statements")
        // WAL record by record, for the profile's split of the writes by table (contrib, no preload).
        _ = try? await pool.execute("CREATE EXTENSION IF NOT EXISTS pg_walinspect")
        // Planning time per statement too: a prepared statement with custom plans is planned
        // again on every execution, and only this shows what that costs. (The setting exists
        // once the library is loaded, so it is set now and read on reload.)
        _ = try await pool.execute("ALTER SYSTEM SET pg_stat_statements.track_planning = on")
        _ = try await pool.query("SELECT pg_reload_conf()")
        let url = configuration.urlIncludingPassword
        logger.info("postgres started (durable)", ["settings": try await settingsLine(pool, extra: postgresSettings)])

        let environment = [Setting.databaseURL.name: url, Setting.logLevel.name: "warning",
                           Setting.stateDirectory.name: folder + "/scorecast-state"]
        try await runCLI(scorecast, ["migrate"], environment: environment, folder: folder, label: "migrate")

        let bundles = (1...appCount).map(bundleID)
        let simulator = try await SimulatorProcess.start(folder: folder, key: key, bundleIDs: bundles, label: "sim-e2e")
        do {
            return try await populate(postgres: postgres, pool: pool, url: url, environment: environment, simulator: simulator,
                                      folder: folder, key: key, gameCount: gameCount, bundles: bundles, scorecast: scorecast,
                                      quiet: quiet, logger: logger)
        } catch {
            await pool.close()
            await simulator.stop()
            throw error
        }
    }

    private static func populate(postgres: EmbeddedPostgres, pool: PostgresPool, url: String, environment: [String: String],
                                 simulator: SimulatorProcess, folder: String, key: BenchKey, gameCount: Int, bundles: [String],
                                 scorecast: String, quiet: Logger, logger: Logger) async throws -> EndToEndEnvironment {
        for bundle in bundles {
            try await runCLI(scorecast, ["apps", "add", "--bundle-id", bundle, "--environment", "production",
                                         "--team-id", BenchKey.teamID, "--key-id", BenchKey.keyID, "--key-file", key.privateKeyPath],
                             environment: environment.merging(apnsEnvironment(simulator)) { $1 }, folder: folder, label: "apps-add")
        }
        let keyOutput = try await runCLI(scorecast, ["keys", "create", "--name", "bench-feed", "--json"],
                                         environment: environment, folder: folder, label: "keys-create")
        guard let object = try? JSONParser().parse(keyOutput),
              let apiKey = object["key"]?.stringValue else {
            throw BenchError("scorecast keys create printed no key")
        }

        // Games and their channels, through the product's registry (the code `games add` and
        // `channels ensure` run), many at a time instead of one process per game.
        let games = (0..<gameCount).map { String(format: "bench-g%05d", $0) }
        let clients = try APNsClientSet(configuration: simulator.clientConfiguration(connections: 2, streams: 100), logger: quiet)
        let registry = ChannelRegistry(pool: pool, apns: clients, credentials: CredentialStore(), channelLimit: 10_000, logger: quiet)
        let gameStore = GameStore(pool: pool)
        var created = 0
        let retries = RetryLog()
        try await withThrowingTaskGroup(of: Int.self) { group in
            for (index, game) in games.enumerated() {
                if index >= 8 { created += try await group.next() ?? 0 }
                group.addTask {
                    _ = try await gameStore.add(GameDraft(id: game, league: "bench", homeTeam: "Home \(index)",
                                                          awayTeam: "Away \(index)", startsAt: Date()))
                    // `ensure` is safe to repeat: a creation that got no answer is tried again
                    // (counted, and its message kept for the report).
                    var made = 0
                    for attempt in 1...3 {
                        let report = try await registry.ensureChannels(gameID: game)
                        made += report.created.count
                        guard let failure = report.failures.first else { return made }
                        retries.record(failure.error.message)
                        if attempt == 3 { throw BenchError("channel creation for \(game) failed 3 times: \(failure.error.message)") }
                    }
                    return made
                }
            }
            for try await count in group { created += count }
        }
        await clients.shutdown()
        // Fresh planner statistics after the bulk load, as autovacuum would gather within a
        // minute: without them the claim query walks every channel (seen in EXPLAIN ANALYZE).
        _ = try await pool.execute("ANALYZE")
        logger.info("end-to-end setup ready", ["games": String(games.count), "channels": String(created)])
        return EndToEndEnvironment(postgres: postgres, pool: pool, databaseURL: url, simulator: simulator, games: games,
                                   channels: created, apiKey: apiKey, scorecast: scorecast, folder: folder,
                                   setupRetries: retries.messages)
    }

    /// The SCORECAST_APNS_* settings that point `scorecast` at the simulator.
    static func apnsEnvironment(_ simulator: SimulatorProcess) -> [String: String] {
        [Setting.apnsSendHost.name: "127.0.0.1", Setting.apnsSendPort.name: String(simulator.sendPort),
         Setting.apnsManagementHost.name: "127.0.0.1", Setting.apnsManagementPort.name: String(simulator.managementPort),
         Setting.apnsCAFile.name: simulator.caCertificatePath]
    }

    /// The settings every `scorecast serve` of the run gets (defaults otherwise).
    func serveEnvironment(httpPort: Int, roles: String, extra: [String: String]) -> [String: String] {
        // The feed is one address posting on up to 128 connections for what would be many feeds,
        // and part 4 scrapes /metrics beside it: the per-address cap (100) would refuse both.
        var environment = Self.inheritedEnvironment.merging([Setting.httpMaxConnectionsPerAddress.name: "0"]) { $1 }
            .merging(extra) { $1 }
        environment.merge(Self.apnsEnvironment(simulator)) { $1 }
        environment[Setting.databaseURL.name] = databaseURL
        environment[Setting.httpPort.name] = String(httpPort)
        environment[Setting.opsPort.name] = "0"
        environment[Setting.roles.name] = roles
        // Quiet unless asked (`--serve-env SCORECAST_LOG_LEVEL=info` shows, e.g., the retries).
        environment[Setting.logLevel.name] = extra[Setting.logLevel.name] ?? "warning"
        environment[Setting.autoMigrate.name] = "false"
        environment[Setting.stateDirectory.name] = folder + "/scorecast-state"
        return environment
    }

    /// This process's environment without SCORECAST_EMBEDDED_POSTGRES_SETTINGS: the processes
    /// it starts use a database URL, with which that variable is refused.
    static var inheritedEnvironment: [String: String] {
        ProcessInfo.processInfo.environment.filter { $0.key != BenchOptions.postgresSettingsVariable }
    }

    /// The settings the report shows: durability, and those scorecast chooses for its workload.
    static let reportedSettings = [
        "fsync", "synchronous_commit", "full_page_writes", "max_connections", "commit_delay", "commit_siblings",
        "wal_compression", "wal_buffers", "max_wal_size", "min_wal_size", "checkpoint_timeout", "shared_buffers",
    ]

    /// The effective values (with units) of `reportedSettings` and of any setting given with
    /// `--postgres-setting` or SCORECAST_EMBEDDED_POSTGRES_SETTINGS, for the report.
    static func settingsLine(_ pool: PostgresPool, extra: [PostgresServerSetting] = []) async throws -> String {
        let names = reportedSettings + extra.map(\.name).filter { !reportedSettings.contains($0) }
        let rows = try await pool.query("SELECT name, coalesce(current_setting(name, true), '?') AS value FROM unnest(\(names)::text[]) WITH ORDINALITY AS s(name, position) ORDER BY position")
        return try rows.map { "\(try $0.decode("name", as: String.self))=\(try $0.decode("value", as: String.self))" }.joined(separator: ", ")
    }

    /// The postmaster's pid (first line of postmaster.pid in the data directory).
    func postmasterPID() async -> pid_t? {
        guard let row = try? await pool.query("SELECT current_setting('data_directory') AS dir").first,
              let folder = try? row.decode("dir", as: String.self),
              let text = try? String(contentsOfFile: folder + "/postmaster.pid", encoding: .utf8),
              let first = text.split(separator: "\n").first else { return nil }
        return pid_t(first)
    }

    /// Runs a scorecast CLI command to its end; returns its standard output.
    @discardableResult
    static func runCLI(_ scorecast: String, _ arguments: [String], environment: [String: String], folder: String,
                       label: String) async throws -> String {
        let process = try ChildProcess(name: "scorecast \(arguments.prefix(2).joined(separator: " "))", executable: scorecast,
                                       arguments: arguments,
                                       environment: inheritedEnvironment.merging(environment) { $1 },
                                       stdoutPath: folder + "/\(label).out", stderrPath: folder + "/\(label).err")
        let (exit, killed) = await process.waitForExit(timeout: .seconds(120))
        guard exit.status == 0, !killed else {
            throw BenchError("scorecast \(arguments.prefix(2).joined(separator: " ")) failed (\(exit.status)): \(process.standardErrorTail())")
        }
        return process.standardOutput
    }

    /// Stops the simulator and Postgres.
    func shutdown() async {
        await pool.close()
        await simulator.stop()
        postgres.stop()
    }
}

/// Failures seen (and retried) during setup, shared by the setup tasks.
final class RetryLog: Sendable {
    private let entries = Mutex<[String]>([])

    /// Records one failure's message.
    func record(_ message: String) { entries.withLock { $0.append(message) } }

    /// Every message recorded.
    var messages: [String] { entries.withLock { $0 } }
}
