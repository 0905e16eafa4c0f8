import APNsSimulator
import Foundation
import Lifecycle
import ScorecastCrypto
import ScorecastLogging
import Statistics
import Testing
import TestSupport
import APNs

/// What the APNs client's pool of idle libcurl easy handles keeps on the heap after a burst.
///
/// A target of its own because the figure is the process's heap in use (glibc `mallinfo2`, the
/// `/metrics` gauge): CI runs each target in a process of its own (`--filter '^Target\.'`), so no
/// other suite allocates while this one measures. Run it the same way.
@Suite("idle easy handle memory")
struct IdleEasyHandleMemoryTests {
    private static let bundleID = "com.example.scores"
    private static let kib = 1024

    /// serve's heap under heaptrack (docs/performance-log.md, 2026-12-02 06:24) was 26 MiB live,
    /// 18 MiB of it in about 200 idle easy handles, each keeping libcurl's default 64 KiB upload
    /// buffer and its 16 KiB receive buffer. Measured here: 92–93 KiB of heap per handle with
    /// the default upload buffer, 45 KiB with libcurl's 16 KiB minimum (the rest is the receive
    /// buffer, the handle, the burst's second connection and the simulator's side). A handle
    /// that keeps a 64 KiB upload buffer cannot stay under 64 KiB.
    @Test("200 broadcasts in flight at once leave 200 idle handles of under 64 KiB each")
    func idleHandlesAfterABurst() async throws {
        let key = try P256PrivateKey.generate()
        let credentials = try APNsCredentials(teamID: "TEAM123456", keyID: "KEY1234567", privateKey: key)
        let state = FileManager.default.temporaryDirectory.appendingPathComponent("apns-sim-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: state) }
        let simulator = try APNsSimulator(
            configuration: SimulatorConfiguration(
                stateDirectory: state.path,
                teams: [SimulatorTeam(teamID: credentials.teamID, keyID: credentials.keyID,
                                      publicKeyPEM: key.publicKey.pem, bundleIDs: [Self.bundleID])],
                budgetPerHour: nil, requestLogCapacity: 1),
            logger: Logger(label: "apns-sim", level: .warning))
        let endpoints = try simulator.start()
        let endpoint = APNsEndpoint(host: "localhost", port: endpoints.sendPort, caFile: endpoints.caCertificatePath)
        let management = APNsEndpoint(host: "localhost", port: endpoints.managementPort, caFile: endpoints.caCertificatePath)
        let shutdown = ShutdownSignal()
        try await whileRunning("the APNs simulator", { try await simulator.run(until: shutdown) }, stop: shutdown.trigger) {
            var configuration = APNsClientConfiguration(sendEndpoint: endpoint, managementEndpoint: management)
            configuration.maxConnectionsPerHost = 2
            configuration.maxConcurrentStreams = 100
            configuration.requestTimeout = .seconds(120)
            let client = try APNsClient(configuration: configuration, logger: Logger(label: "apns", level: .warning))
            let channel = try #require(try await client.createChannel(
                bundleID: Self.bundleID, policy: .noMessageStored, credentials: credentials).channelID)
            let broadcast = Broadcast(bundleID: Self.bundleID, channelID: channel, priority: .immediate, expiration: 0,
                                      payload: Array(#"{"aps":{"timestamp":1764453600,"event":"update","content-state":{"homeScore":2,"awayScore":1}}}"#.utf8))
            // One broadcast first: the connection is open and warm, its handle idle.
            #expect(try await client.sendBroadcast(broadcast, credentials: credentials).status == 200)
            let before = try #require(ProcessMemory.current()).heapInUseBytes

            // The simulator holds every answer until all 200 have arrived (their bodies uploaded),
            // so 200 handles are in flight together whatever the machine's speed.
            let count = 200
            try simulator.setFaults(SimulatorFaults(holdAnswers: true))
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<count {
                    group.addTask { try await client.sendBroadcast(broadcast, credentials: credentials).status }
                }
                try await eventually("\(count) held answers") { simulator.heldAnswerCount == count }
                try simulator.setFaults(SimulatorFaults())
                _ = simulator.releaseHeldAnswers()
                return try await group.reduce(into: [Int: Int]()) { $0[$1, default: 0] += 1 }
            }
            #expect(statuses == [200: count])

            let after = try #require(ProcessMemory.current()).heapInUseBytes
            let perHandle = (after - before) / count
            print("idle easy handles: \(count) kept \((after - before) / Self.kib) KiB of heap, \(perHandle / Self.kib) KiB each")
            #expect(perHandle < 64 * Self.kib, "\(perHandle / Self.kib) KiB per idle easy handle")
            await client.shutdown()
        }
    }
}
