import Clocks
import APNsSimulator
import ScorecastCrypto
import Foundation
import Lifecycle
import ScorecastLogging
import TestSupport
@testable import APNs

/// An in-process APNs simulator (real HTTP/2 over TLS on loopback) with one registered team,
/// and a client pointed at it. The simulator and the client's token cache read the same kind of
/// hand-moved clock, so token ages are tested without waiting.
struct SimulatorHarness: Sendable {
    static let bundleID = "com.example.scores"

    let simulator: APNsSimulator
    let endpoints: SimulatorEndpoints
    let credentials: APNsCredentials
    /// The simulator's clock (UNIX seconds).
    let simulatorClock: ManualSimulatorClock
    /// The client's token clock.
    let clientClock: ManualServiceClock

    var sendEndpoint: APNsEndpoint { APNsEndpoint(host: "localhost", port: endpoints.sendPort, caFile: endpoints.caCertificatePath) }
    var managementEndpoint: APNsEndpoint {
        APNsEndpoint(host: "localhost", port: endpoints.managementPort, caFile: endpoints.caCertificatePath)
    }

    /// A client for this simulator; `configure` adjusts its settings.
    func client(logger: Logger = TestLog.logger, connectionObserver: (any APNsConnectionObserver)? = nil,
                _ configure: (inout APNsClientConfiguration) -> Void = { _ in }) throws -> APNsClient {
        var configuration = APNsClientConfiguration(sendEndpoint: sendEndpoint, managementEndpoint: managementEndpoint)
        configuration.requestTimeout = .seconds(10)
        configure(&configuration)
        let tokens = try TokenCache(renewalAge: configuration.tokenRenewalAge, logger: logger, clock: clientClock)
        return try APNsClient(configuration: configuration, logger: logger, tokens: tokens, connectionObserver: connectionObserver)
    }

    /// Starts a simulator for a new team key allowed to use `bundleID`, runs `body`, stops it.
    static func with(
        configure: (inout SimulatorConfiguration) -> Void = { _ in },
        _ body: (SimulatorHarness) async throws -> Void
    ) async throws {
        let key = try P256PrivateKey.generate()
        let credentials = try APNsCredentials(teamID: "TEAM123456", keyID: "KEY1234567", privateKey: key)
        let start = Date().timeIntervalSince1970.rounded(.down)
        let simulatorClock = ManualSimulatorClock(start: start)
        let state = FileManager.default.temporaryDirectory.appendingPathComponent("apns-sim-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: state) }
        var configuration = SimulatorConfiguration(
            stateDirectory: state.path,
            teams: [SimulatorTeam(teamID: credentials.teamID, keyID: credentials.keyID,
                                  publicKeyPEM: key.publicKey.pem, bundleIDs: [bundleID])],
            budgetPerHour: nil,
            clock: simulatorClock)
        configure(&configuration)
        let simulator = try APNsSimulator(configuration: configuration, logger: Logger(label: "apns-sim", level: .warning))
        let endpoints = try simulator.start()
        let harness = SimulatorHarness(simulator: simulator, endpoints: endpoints, credentials: credentials,
                                       simulatorClock: simulatorClock, clientClock: ManualServiceClock(Date(timeIntervalSince1970: start)))
        let shutdown = ShutdownSignal()
        try await whileRunning("the APNs simulator", { try await simulator.run(until: shutdown) }, stop: shutdown.trigger) {
            try await body(harness)
        }
    }
}
