import APNs
import APNsSimulator
@testable import Demo
@testable import Registry
import ScorecastCrypto
import Foundation
import Lifecycle
import ScorecastLogging
import ScorecastCore
@testable import Server
@testable import ServiceBase
import Testing

@Suite("Built-in simulator and the APNs runtime")
struct BuiltInSimulatorTests {
    private func configuration(state: URL, extra: [String: String] = [:]) throws -> Configuration {
        var environment = ["SCORECAST_STATE_DIR": state.path]
        environment.merge(extra) { _, new in new }
        return try Configuration.load(from: environment)
    }

    private func temporaryFolder() throws -> URL {
        let url = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("builtin-sim-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    @Test func cliFindsTheRunningSimulatorThroughItsFileAndItIsRemovedOnStop() async throws {
        let state = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: state) }
        let configuration = try configuration(state: state)
        #expect(configuration.apns == .builtInSimulator)
        let logger = Logger(label: "test", level: .warning)

        let notRunning = try await #require(throws: RuntimeError.self) { try await APNsRuntime.connect(configuration, builtIn: BuiltInSimulatorAPNs(), logger: logger) }
        #expect(notRunning.code == .failure)
        #expect(notRunning.message.contains("the built-in APNs simulator is not running"))
        #expect(notRunning.message.contains("SCORECAST_APNS_"))

        let (simulator, endpoints) = try BuiltInSimulator.start(configuration: configuration, logger: logger)
        let file = try #require(try BuiltInSimulatorFile.read(stateDirectory: state))
        #expect(file.pid == getpid())
        #expect(file.endpoints == endpoints)
        #expect(endpoints.caCertificatePath.hasPrefix(state.appendingPathComponent("apns-sim").path))

        // An app whose key the simulator learns at start can manage channels through a CLI-style client.
        let key = try P256PrivateKey.generate()
        let keyPath = state.appendingPathComponent("app.p8").path
        try key.pkcs8PEM.write(toFile: keyPath, atomically: true, encoding: .utf8)
        let app = try testApp(keyPath: keyPath)
        #expect(simulator.register(apps: [app]) == 1)

        let shutdown = ShutdownSignal()
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await simulator.run(until: shutdown) }
            let runtime = try await APNsRuntime.connect(configuration, builtIn: BuiltInSimulatorAPNs(), logger: logger)
            #expect(runtime.simulatorEndpoints == BuiltInSimulatorAPNs.endpoints(endpoints))
            let credentials = try await CredentialStore().credentials(for: app)
            let created = try await runtime.clients.create(bundleID: app.bundleID, policy: .noMessageStored, credentials: credentials)
            #expect(runtime.clients.count == 1)
            #expect(created.status == 201)
            await runtime.shutdown()

            let admin = BuiltInSimulatorAdmin(port: endpoints.adminPort)
            #expect(await admin.isAnswering())
            let other = try P256PrivateKey.generate()
            try await admin.registerMerging(SimulatorTeam(
                teamID: app.teamID, keyID: app.keyID, publicKeyPEM: key.publicKey.pem, bundleIDs: ["com.example.second"]))
            try await admin.registerMerging(SimulatorTeam(
                teamID: "TEAM222222", keyID: "KEY2222222", publicKeyPEM: other.publicKey.pem, bundleIDs: ["com.example.third"]))
            let teams = try await admin.teams()
            #expect(Set(teams.first { $0.keyID == app.keyID }?.bundleIDs ?? []) == ["com.example.scores", "com.example.second"])
            #expect(teams.count == 2)

            shutdown.trigger()
            try await group.waitForAll()
        }
        #expect(try BuiltInSimulatorFile.read(stateDirectory: state) == nil)
        await #expect(throws: RuntimeError.self) { try await APNsRuntime.connect(configuration, builtIn: BuiltInSimulatorAPNs(), logger: logger) }
    }

    /// `apps add` and `apps update` with the built-in simulator: the key reaches the simulator of
    /// a running `serve`, merged with what that key already had.
    @Test func anAppsKeyIsRegisteredWithTheRunningSimulator() async throws {
        let state = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: state) }
        let key = try P256PrivateKey.generate()
        let keyPath = state.appendingPathComponent("app.p8").path
        try key.pkcs8PEM.write(toFile: keyPath, atomically: true, encoding: .utf8)
        let app = try testApp(keyPath: keyPath)
        #expect(await BuiltInSimulatorAdmin.registerWithRunningSimulator(app, publicKeyPEM: nil, stateDirectory: state) == .notRunning)

        let (simulator, endpoints) = try BuiltInSimulator.start(configuration: try configuration(state: state), logger: Logger(label: "test", level: .warning))
        let shutdown = ShutdownSignal()
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await simulator.run(until: shutdown) }
            #expect(await BuiltInSimulatorAdmin.registerWithRunningSimulator(app, publicKeyPEM: nil, stateDirectory: state) == .registered)
            var second = app
            second.bundleID = "com.example.second"
            #expect(await BuiltInSimulatorAdmin.registerWithRunningSimulator(second, publicKeyPEM: key.publicKey.pem, stateDirectory: state) == .registered)
            let teams = try await BuiltInSimulatorAdmin(port: endpoints.adminPort).teams()
            #expect(teams.count == 1)
            #expect(Set(teams.first?.bundleIDs ?? []) == ["com.example.scores", "com.example.second"])
            #expect(teams.first?.publicKeyPEM == key.publicKey.pem)

            var unreadable = app
            unreadable.keyPath = state.appendingPathComponent("missing.p8").path
            #expect(await BuiltInSimulatorAdmin.registerWithRunningSimulator(unreadable, publicKeyPEM: nil, stateDirectory: state) == .keyUnreadable)
            shutdown.trigger()
            try await group.waitForAll()
        }
    }

    @Test func aStaleFileOfADeadProcessIsNotARunningSimulator() async throws {
        let state = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: state) }
        // A pid far above pid_max cannot be alive.
        let stale = BuiltInSimulatorFile(
            pid: 99_999_999, endpoints: SimulatorEndpoints(sendPort: 1, managementPort: 2, adminPort: 3, caCertificatePath: "/nope"))
        try stale.write(stateDirectory: state)
        let error = try await #require(throws: RuntimeError.self) { try await BuiltInSimulatorAPNs().running(try configuration(state: state)) }
        #expect(error.message.contains("not running"))
        // Alive pid (ours) but nothing on the admin port.
        try BuiltInSimulatorFile(pid: getpid(), endpoints: SimulatorEndpoints(sendPort: 1, managementPort: 2, adminPort: 1, caCertificatePath: "/nope"))
            .write(stateDirectory: state)
        await #expect(throws: RuntimeError.self) { try await BuiltInSimulatorAPNs().running(try configuration(state: state)) }
    }

    @Test func remoteConfigurationMakesAClientOnTheConfiguredHosts() async throws {
        let state = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: state) }
        let configuration = try configuration(state: state, extra: [
            "SCORECAST_APNS_SEND_HOST": "127.0.0.1", "SCORECAST_APNS_SEND_PORT": "4443",
            "SCORECAST_APNS_MANAGEMENT_HOST": "127.0.0.1", "SCORECAST_APNS_MANAGEMENT_PORT": "4444",
            "SCORECAST_APNS_TIMEOUT_MS": "1500",
        ])
        let runtime = try await APNsRuntime.connect(configuration, builtIn: BuiltInSimulatorAPNs(), logger: Logger(label: "test", level: .warning))
        #expect(runtime.clients.configuration.sendEndpoint == APNsEndpoint(host: "127.0.0.1", port: 4443))
        #expect(runtime.clients.configuration.managementEndpoint == APNsEndpoint(host: "127.0.0.1", port: 4444))
        #expect(runtime.clients.configuration.requestTimeout == .milliseconds(1500))
        #expect(runtime.clients.count == 0)
        #expect(runtime.simulator == nil)
        await runtime.shutdown()
    }

    @Test func teamsGroupAppsByKeyAndSkipUnreadableKeys() throws {
        let state = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: state) }
        let key = try P256PrivateKey.generate()
        let path = state.appendingPathComponent("shared.p8").path
        try key.pkcs8PEM.write(toFile: path, atomically: true, encoding: .utf8)
        var first = try testApp(keyPath: path)
        var second = first
        second.bundleID = "com.example.second"
        var broken = first
        broken.bundleID = "com.example.broken"
        broken.keyID = "BROKEN1234"
        broken.keyPath = state.appendingPathComponent("missing.p8").path
        first.environment = .production
        let teams = BuiltInSimulator.teams(for: [first, second, broken], logger: Logger(label: "test", level: .critical))
        #expect(teams.count == 1)
        #expect(teams.first?.bundleIDs == ["com.example.scores", "com.example.second"])
        #expect(teams.first?.publicKeyPEM == key.publicKey.pem)
    }

    private func testApp(keyPath: String) throws -> AppRecord {
        AppRecord(id: 1, bundleID: "com.example.scores", environment: .sandbox, teamID: "TEAM123456", keyID: "KEY1234567", keyPath: keyPath)
    }
}
