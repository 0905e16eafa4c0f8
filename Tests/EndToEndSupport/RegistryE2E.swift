import APNs
import APNsSimulator
import ScorecastCrypto
import Foundation
import Lifecycle
import ScorecastLogging
import Postgres
import TestSupport

/// What one end-to-end test needs (shared by EndToEndTests and FaultTests): a schema of its own (migrated by the CLI), the APNs
/// simulator running in this process over TLS, a state folder, and the environment that points
/// the built `scorecast` at all three.
public struct RegistryE2E: Sendable {
    public let simulator: APNsSimulator
    public let endpoints: SimulatorEndpoints
    public let state: URL
    /// The database's conninfo; empty with the embedded cluster.
    public let databaseURL: String
    public let pool: PostgresPool
    /// The environment of every `scorecast` run (APNs = this simulator, as "remote" hosts).
    public var environment: [String: String]

    public static let logger = Logger(label: "e2e", level: .error)

    /// Runs `body` with a fresh fixture; `extra` is added to the CLI's environment. `database`
    /// replaces the shared test database (a fault test's own cluster, which it may stop);
    /// `schema` is used as it is instead of a new schema (a cluster of the test's own whose
    /// default schema scorecast uses, as behind a pooler that does not pass `search_path`).
    /// `embedded` sets no database URL: `scorecast` runs the embedded cluster of the state
    /// folder (each command its own, or the one a running `serve` owns), and `pool` reaches it.
    /// `stateIn` is the folder to make the state folder in (the system's temporary folder).
    public static func with(
        _ extra: [String: String] = [:], database: TestDatabase? = nil, schema: PostgresConfiguration? = nil, embedded: Bool = false,
        stateIn parent: URL = URL(fileURLWithPath: NSTemporaryDirectory()), _ body: (RegistryE2E) async throws -> Void
    ) async throws {
        let state = parent.appendingPathComponent("registry-e2e-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: state, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: state) }
        let schema =
            if embedded {
                try EmbeddedPostgres(stateDirectory: state, logger: logger).clientConfiguration()
            } else if let schema { schema } else if let database { try await database.makeSchema() } else { try await TestDatabase.shared().makeSchema() }
        let databaseURL = embedded ? "" : conninfo(schema)
        let simulator = try APNsSimulator(
            configuration: SimulatorConfiguration(stateDirectory: state.appendingPathComponent("sim").path), logger: logger)
        let endpoints = try simulator.start()
        var environment = [
            "SCORECAST_DATABASE_URL": databaseURL,
            "SCORECAST_STATE_DIR": state.path,
            "SCORECAST_APNS_SEND_HOST": "127.0.0.1",
            "SCORECAST_APNS_SEND_PORT": String(endpoints.sendPort),
            "SCORECAST_APNS_MANAGEMENT_HOST": "127.0.0.1",
            "SCORECAST_APNS_MANAGEMENT_PORT": String(endpoints.managementPort),
            "SCORECAST_APNS_CA_FILE": endpoints.caCertificatePath,
            "SCORECAST_APNS_TIMEOUT_MS": "5000",
        ]
        if embedded { environment["SCORECAST_DATABASE_URL"] = nil }
        environment.merge(extra) { _, new in new }
        let pool = PostgresPool(configuration: schema, maxConnections: 2, logger: logger)
        let fixture = RegistryE2E(
            simulator: simulator, endpoints: endpoints, state: state, databaseURL: databaseURL, pool: pool, environment: environment)
        let shutdown = ShutdownSignal()
        try await whileRunning("the APNs simulator", { try await simulator.run(until: shutdown) }, stop: shutdown.trigger) {
            var failure: (any Error)?
            do {
                let migrated = try await fixture.run("migrate")
                guard migrated.code == 0 else { throw TestSupportError("migrate failed: \(migrated.stderr)") }
                try await body(fixture)
            } catch {
                failure = error
            }
            try await withDeadline("the pool closes") { await pool.close() }
            if let failure { throw failure }
        }
    }

    /// Runs `scorecast arguments…` with the fixture's environment (plus `extra`).
    public func run(_ arguments: String..., extra: [String: String] = [:]) async throws -> (code: Int32, stdout: String, stderr: String) {
        try await run(arguments, extra: extra)
    }

    /// Runs `scorecast arguments` with the fixture's environment (plus `extra`; an empty value
    /// removes a variable).
    public func run(_ arguments: [String], extra: [String: String] = [:]) async throws -> (code: Int32, stdout: String, stderr: String) {
        var environment = self.environment
        for (name, value) in extra { environment[name] = value.isEmpty ? nil : value }
        return try await ScorecastProcess.run(arguments, environment: environment)
    }

    /// Runs a command that must succeed with `--json` output, and decodes it.
    public func json(_ arguments: String..., extra: [String: String] = [:]) async throws -> Any {
        let result = try await run(arguments + ["--json"], extra: extra)
        guard result.code == 0 else {
            throw TestSupportError("scorecast \(arguments.joined(separator: " ")) exited \(result.code): \(result.stderr)")
        }
        return try JSONSerialization.jsonObject(with: Data(result.stdout.utf8))
    }

    /// A P-256 `.p8` key made with the `openssl` CLI (as Apple issues them), with random ids,
    /// registered with the simulator for `bundleIDs`.
    public func teamKey(bundleIDs: [String]) async throws -> TeamKeyFile {
        let key = try await TeamKeyFile.make(in: state, curve: "prime256v1")
        try simulator.registerTeam(SimulatorTeam(teamID: key.teamID, keyID: key.keyID, publicKeyPEM: key.publicKeyPEM, bundleIDs: bundleIDs))
        return key
    }

    /// Adds app `bundleID` in sandbox through the CLI with a fresh registered key.
    @discardableResult
    public func addApp(_ bundleID: String, _ options: String..., extra: [String: String] = [:]) async throws -> TeamKeyFile {
        let key = try await teamKey(bundleIDs: [bundleID])
        let result = try await run(
            ["apps", "add", "--bundle-id", bundleID, "--environment", "sandbox", "--team-id", key.teamID, "--key-id", key.keyID,
             "--key-file", key.path] + options, extra: extra)
        guard result.code == 0 else { throw TestSupportError("apps add failed (\(result.code)): \(result.stderr)") }
        return key
    }

    /// Adds game `id` through the CLI.
    public func addGame(_ id: String) async throws {
        let result = try await run("games", "add", "--id", id, "--league", "EPL", "--home", "Arsenal", "--away", "Chelsea",
                                   "--starts-at", "2026-05-24T15:00:00Z")
        guard result.code == 0 else { throw TestSupportError("games add failed: \(result.stderr)") }
    }

    /// The simulator's channel ids for `bundleID`.
    public func simulatorChannels(_ bundleID: String) -> Set<String> {
        Set(simulator.channels().filter { $0.bundleID == bundleID }.map(\.id))
    }

    /// A libpq conninfo string for `configuration`, its schema first on the search path.
    public static func conninfo(_ configuration: PostgresConfiguration) -> String {
        func quote(_ value: String) -> String {
            "'" + value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "\\'") + "'"
        }
        var parts: [String] = []
        if let host = configuration.host { parts.append("host=\(quote(host))") }
        if let port = configuration.port { parts.append("port=\(port)") }
        if let user = configuration.user { parts.append("user=\(quote(user))") }
        if let password = configuration.password { parts.append("password=\(quote(password))") }
        if let database = configuration.database { parts.append("dbname=\(quote(database))") }
        for (key, value) in configuration.parameters where key != "options" { parts.append("\(key)=\(quote(value))") }
        if let schema = configuration.searchPath?.first { parts.append("options=\(quote("-c search_path=\(schema)"))") }
        return parts.joined(separator: " ")
    }
}

/// A team signing key in a `.p8` file, made by the `openssl` CLI.
public struct TeamKeyFile: Sendable {
    public let teamID: String
    public let keyID: String
    public let path: String
    public let publicKeyPEM: String

    /// Credentials for acting at APNs behind the registry's back.
    public func credentials() throws -> APNsCredentials {
        try APNsCredentials(teamID: teamID, keyID: keyID, keyFile: path)
    }

    /// A key on `curve` (`prime256v1` for APNs; others to test refusals) in `folder`.
    public static func make(in folder: URL, curve: String) async throws -> TeamKeyFile {
        let name = UUID().uuidString
        let path = folder.appendingPathComponent("\(name).p8").path
        let publicPath = folder.appendingPathComponent("\(name).pub").path
        try await Shell.run("openssl ecparam -genkey -name \(curve) -noout | openssl pkcs8 -topk8 -nocrypt -out '\(path)' "
            + "&& openssl pkey -in '\(path)' -pubout -out '\(publicPath)'")
        return TeamKeyFile(teamID: randomID(), keyID: randomID(), path: path,
                           publicKeyPEM: try String(contentsOfFile: publicPath, encoding: .utf8))
    }

    public static func randomID() -> String {
        String((0..<10).map { _ in "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789".randomElement() ?? "A" })
    }
}

/// Runs shell commands for fixtures (openssl).
public enum Shell {
    public static func run(_ command: String) async throws {
        let result = try await ExternalTool.run("sh", ["-c", command])
        guard result.succeeded else { throw TestSupportError("`\(command)` failed: \(result.stderr)") }
    }
}
