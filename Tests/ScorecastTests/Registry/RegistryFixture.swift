import APNs
import APNsCore
import APNsSimulator
import Clocks
import Foundation
import Lifecycle
import Migrations
import Postgres
@testable import Registry
import ScorecastCore
import ScorecastCrypto
import ScorecastLogging
import TestSupport

/// A migrated schema of the test's own, a real APNs simulator over TLS and a client on it.
struct RegistryFixture: Sendable {
    let pool: PostgresPool
    let simulator: APNsSimulator
    let endpoints: SimulatorEndpoints
    /// One client per signing key, as the application uses them.
    let client: APNsClientSet
    let folder: URL
    static let logger = Logger(label: "registry-test", level: .error)

    /// Runs `body` with a fresh fixture and tears it down afterwards.
    static func with(_ body: (RegistryFixture) async throws -> Void) async throws {
        let folder = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("registry-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let pool = try await TestDatabase.shared().makePool(maxConnections: 6)
        let migrator = Migrator(files: try SchemaFolder.read(ScorecastProcess.schemaFolder), logger: logger)
        try await migrator.migrate(pool)
        let simulator = try APNsSimulator(
            configuration: SimulatorConfiguration(stateDirectory: folder.appendingPathComponent("sim").path), logger: logger)
        let endpoints = try simulator.start()
        var settings = APNsClientConfiguration(
            sendEndpoint: APNsEndpoint(host: "127.0.0.1", port: endpoints.sendPort, caFile: endpoints.caCertificatePath),
            managementEndpoint: APNsEndpoint(host: "127.0.0.1", port: endpoints.managementPort, caFile: endpoints.caCertificatePath))
        settings.requestTimeout = hangDeadline  // bounds a hang only (a loaded machine's first handshake is slow)
        let client = try APNsClientSet(configuration: settings, logger: logger)
        let fixture = RegistryFixture(pool: pool, simulator: simulator, endpoints: endpoints, client: client, folder: folder)
        let shutdown = ShutdownSignal()
        try await whileRunning("the APNs simulator", { try await simulator.run(until: shutdown) }, stop: shutdown.trigger) {
            var failure: (any Error)?
            do {
                try await body(fixture)
            } catch {
                failure = error
            }
            try await withDeadline("the APNs client shuts down") { await client.shutdown() }
            try await withDeadline("the pool closes") { await pool.close() }
            if let failure { throw failure }
        }
    }

    /// A registry on this fixture's database and simulator, going by `clock` (the system's by default).
    func registry(limit: Int = 10_000, apns: (any ChannelManaging)? = nil, clock: any ServiceClock = SystemServiceClock()) -> ChannelRegistry {
        ChannelRegistry(pool: pool, apns: apns ?? client, credentials: CredentialStore(), channelLimit: limit, logger: Self.logger, clock: clock)
    }

    /// Adds an app with a fresh key the simulator accepts.
    func addApp(_ bundleID: String = "com.example.scores", environment: APNsEnvironment = .sandbox,
                configure: (inout AppSettings) -> Void = { _ in }) async throws -> AppRecord {
        let key = try P256PrivateKey.generate()
        let path = folder.appendingPathComponent("\(bundleID)-\(environment).p8").path
        try key.pkcs8PEM.write(toFile: path, atomically: true, encoding: .utf8)
        let teamID = GeneratedSigningKey.randomAppleID(), keyID = GeneratedSigningKey.randomAppleID()
        try simulator.registerTeam(SimulatorTeam(teamID: teamID, keyID: keyID, publicKeyPEM: key.publicKey.pem, bundleIDs: [bundleID]))
        var settings = AppSettings()
        configure(&settings)
        return try await AppStore(pool: pool).add(
            AppDraft(bundleID: bundleID, environment: environment, teamID: teamID, keyID: keyID, keyPath: path, settings: settings))
    }

    /// Adds a game.
    @discardableResult
    func addGame(_ id: String = "g1") async throws -> GameRecord {
        try await GameStore(pool: pool).add(GameDraft(id: id, league: "EPL", homeTeam: "Arsenal", awayTeam: "Chelsea", startsAt: Date()))
    }

    /// The channel ids the simulator holds for `bundleID`.
    func simulatorChannels(_ bundleID: String = "com.example.scores") -> Set<String> {
        Set(simulator.channels().filter { $0.bundleID == bundleID }.map(\.id))
    }

    /// Credentials of `app` (to act at APNs behind the registry's back).
    func credentials(_ app: AppRecord) async throws -> APNsCredentials {
        try await CredentialStore().credentials(for: app)
    }
}

/// Channel management that passes calls to a real client, running a hook after each create
/// (e.g. to inject a simulator fault between the create and the compensating delete).
struct InterferingChannelManagement: ChannelManaging {
    let inner: APNsClientSet
    let afterCreate: @Sendable () throws -> Void

    func create(bundleID: String, policy: ChannelStoragePolicy, credentials: APNsCredentials) async throws(APNsClientError) -> APNsResponse {
        let response = try await inner.create(bundleID: bundleID, policy: policy, credentials: credentials)
        do {
            try afterCreate()
        } catch {
            throw APNsClientError(.invalidConfiguration, "test hook failed: \(error)")
        }
        return response
    }

    func delete(bundleID: String, channelID: String, credentials: APNsCredentials) async throws(APNsClientError) -> APNsResponse {
        try await inner.delete(bundleID: bundleID, channelID: channelID, credentials: credentials)
    }

    func list(bundleID: String, credentials: APNsCredentials) async throws(APNsClientError) -> APNsResponse {
        try await inner.list(bundleID: bundleID, credentials: credentials)
    }
}
