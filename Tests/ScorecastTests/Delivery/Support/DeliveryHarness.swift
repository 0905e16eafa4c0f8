import APNs
import APNsCore
import APNsSimulator
import Clocks
import Delivery
import DeliveryEngine
import Foundation
import Lifecycle
import Postgres
import Registry
import ScorecastCore
import ScorecastCrypto
import ScorecastLogging
import ServiceBase
import TestSupport

/// A migrated schema, an APNs simulator over real HTTP/2 + TLS with one registered team, an
/// `APNsClient` trusting it, and an app in the database whose `.p8` the simulator accepts.
struct DeliveryHarness: Sendable {
    let database: DeliveryDatabase
    let simulator: APNsSimulator
    let client: APNsClient
    let bundleID: String
    let teamID = "TEAMWORKER"
    let keyID = "KEYWORKER1"
    let keyPath: String
    let folder: URL
    let appID: Int64
    /// Everything the pools of this harness logged (notice and above).
    let logs: MemorySink

    var pool: PostgresPool { database.pool }

    /// Runs `body` with a fresh harness and tears it down afterwards.
    static func with(
        configure: @Sendable (inout SimulatorConfiguration) -> Void = { _ in },
        requestTimeout: Duration = hangDeadline,  // bounds a hang: a loaded machine's first handshake and token must not time out
        _ body: (DeliveryHarness) async throws -> Void
    ) async throws {
        let folder = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("scorecast-workers-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let key = try P256PrivateKey.generate()
        let keyPath = folder.appendingPathComponent("AuthKey_KEYWORKER1.p8").path
        try Data(key.pkcs8PEM.utf8).write(to: URL(fileURLWithPath: keyPath))
        let bundleID = "com.example.scores"

        var configuration = SimulatorConfiguration(
            stateDirectory: folder.appendingPathComponent("sim").path,
            teams: [SimulatorTeam(teamID: "TEAMWORKER", keyID: "KEYWORKER1", publicKeyPEM: key.publicKey.pem, bundleIDs: [bundleID])],
            budgetPerHour: nil)
        configure(&configuration)
        let simulator = try APNsSimulator(configuration: configuration, logger: Logger(label: "apns-sim", level: .error))
        let endpoints = try simulator.start()
        var clientConfiguration = APNsClientConfiguration(
            sendEndpoint: APNsEndpoint(host: "localhost", port: endpoints.sendPort, caFile: endpoints.caCertificatePath),
            managementEndpoint: APNsEndpoint(host: "localhost", port: endpoints.managementPort, caFile: endpoints.caCertificatePath))
        clientConfiguration.requestTimeout = requestTimeout
        let client = try APNsClient(configuration: clientConfiguration, logger: Logger(label: "apns", level: .error))

        let stopSimulator = ShutdownSignal()
        try await whileRunning("the APNs simulator", { try await simulator.run(until: stopSimulator) }, stop: stopSimulator.trigger) {
            do {
                try await DeliveryDatabase.with(maxConnections: 12) { database in
                    let appID = try await database.addApp(bundleID: bundleID, teamID: "TEAMWORKER", keyID: "KEYWORKER1", keyPath: keyPath)
                    let harness = DeliveryHarness(
                        database: database, simulator: simulator, client: client, bundleID: bundleID, keyPath: keyPath,
                        folder: folder, appID: appID, logs: MemorySink())
                    try await body(harness)
                }
            } catch {
                _ = try? await withDeadline("the APNs client shuts down") { await client.shutdown() }
                throw error
            }
            try await withDeadline("the APNs client shuts down") { await client.shutdown() }
        }
    }

    // MARK: - Setup

    /// Creates a channel at the simulator (as the registry does) and records it; returns both ids.
    func createChannel(policy: ChannelStoragePolicy = .noMessageStored, appID: Int64? = nil) async throws -> (id: Int64, apnsID: String) {
        let credentials = try APNsCredentials(teamID: teamID, keyID: keyID, keyFile: keyPath)
        let response = try await client.createChannel(bundleID: bundleID, policy: policy, credentials: credentials)
        guard response.status == 201, let apnsID = response.channelID else {
            throw TestSupportError("the simulator answered \(response.status) to a channel creation")
        }
        let id = try await database.addChannel(appID: appID ?? self.appID, apnsChannelID: apnsID, storagePolicy: policy.rawValue)
        return (id, apnsID)
    }

    /// Settings for tests: short leases and intervals, fast retries.
    func settings(
        workers: Int = 2, batch: Int = 16, lease: Duration = .seconds(10), poll: Duration = .milliseconds(50),
        grace: Duration = .seconds(2), routine: Duration = .zero, standardBudget: Int = 100,
        retry: RetryPolicy = RetryPolicy(baseDelay: 0.05, maximumDelay: 0.2, minimumDelay: 0.01, maximumAttempts: 12)
    ) -> WorkerSettings {
        WorkerSettings(
            workers: workers, claimBatchSize: batch, leaseDuration: lease, pollInterval: poll, shutdownGrace: grace,
            routineInterval: routine, budgetProfiles: BudgetProfiles(standardPerHour: standardBudget, frequentPerHour: standardBudget * 5),
            retryPolicy: retry,
            breakerPolicy: CircuitBreaker.Policy(failureThreshold: 10, initialOpenInterval: 0.05, maximumOpenInterval: 0.2, probeTimeout: 10),
            apnsRequestTimeout: .seconds(5))
    }

    /// `settings` on a notify channel of the test's own. NOTIFY is per database, not per
    /// schema: on the shared channel, the notifications of tests running beside this one would
    /// wake these workers (rightly: they announce work), which a test counting wakes or claims,
    /// or proving a path other than NOTIFY, cannot have.
    func ownNotifyChannel(_ settings: WorkerSettings) -> WorkerSettings {
        var settings = settings
        settings.notifyChannel = "scorecast_test_" + String(UInt32.random(in: 0...UInt32.max), radix: 16)
        return settings
    }

    /// The backends listening on `channel` (their last statement was its `LISTEN`).
    func listenerPIDs(on channel: String) async throws -> [Int32] {
        try await pool.query("SELECT pid FROM pg_stat_activity WHERE query = \("LISTEN \"\(channel)\"")")
            .map { try $0.decode("pid", as: Int32.self) }
    }

    /// A worker pool on this harness's database and simulator, on `clock` (the system's by default).
    func makePool(
        _ settings: WorkerSettings, ownerPrefix: String? = nil, handOff: AlertHandOff? = nil, clock: any ServiceClock = SystemServiceClock()
    ) -> WorkerPool {
        WorkerPool(
            pool: pool, apns: client, settings: settings,
            logger: Logger(label: "workers", level: .notice, sink: logs), ownerPrefix: ownerPrefix, handOff: handOff, clock: clock)
    }

    /// Runs `workers` while `body` runs, then shuts it down and waits for it; a pool that does
    /// not stop fails the test at the hang deadline instead of holding the suite.
    func running<T: Sendable>(_ workers: WorkerPool, _ body: () async throws -> T) async throws -> T {
        let shutdown = ShutdownSignal()
        return try await whileRunning("the worker pool", { try await workers.run(until: shutdown) }, stop: shutdown.trigger, body)
    }

    /// Queues an update as ingest does, and wakes the workers.
    @discardableResult
    func enqueue(
        channelID: Int64, score: Int, timestamp: Int64, priority: Int = 10, alerting: Bool = true, notify: Bool = true
    ) async throws -> Int64 {
        let version = try await database.enqueue(
            channelID: channelID, payload: DeliveryDatabase.payload(score: score, timestamp: timestamp), timestamp: timestamp,
            priority: priority, alerting: alerting, eventID: Int64(score))
        if notify { try await pool.notify(channel: WorkerSettings.defaultNotifyChannel) }
        return version
    }

    /// Sends one broadcast straight through the client (to a channel of its own), so that the
    /// send connection has carried a successful request.
    func warmUpSendConnection() async throws {
        let channel = try await createChannel()
        let credentials = try APNsCredentials(teamID: teamID, keyID: keyID, keyFile: keyPath)
        let response = try await client.sendBroadcast(
            Broadcast(bundleID: bundleID, channelID: channel.apnsID, priority: .opportunistic, expiration: 0,
                      payload: DeliveryDatabase.payload(score: 0, timestamp: 1)),
            credentials: credentials)
        guard response.status == 200 else { throw TestSupportError("the warm-up broadcast answered \(response.status)") }
    }

    // MARK: - Inspection

    /// Broadcasts the simulator received for `apnsChannelID`, oldest first.
    func broadcasts(to apnsChannelID: String) -> [SimulatorReceivedRequest] {
        simulator.receivedRequests().filter { $0.port == "send" && $0.header("apns-channel-id") == apnsChannelID }
    }

    /// How many outbox rows are left.
    func outboxCount() async throws -> Int {
        try await pool.query("SELECT count(*)::int8 AS n FROM outbox")[0].decode("n")
    }
}
