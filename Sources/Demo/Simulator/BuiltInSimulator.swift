import APNsSimulator
import Registry
import ScorecastCrypto
import Foundation
import Lifecycle
import ScorecastLogging
import ServiceBase

/// The APNs simulator that `scorecast serve` runs in-process when no APNs hosts are configured.
///
/// Its state (the generated TLS certificate, and channels and budgets in `state.json`, kept
/// across restarts) lives in `<state>/apns-sim/`; while it runs,
/// `<state>/apns-sim/endpoints.json` tells CLI commands in other processes where it listens.
/// Every app in the database gets its public key registered at start, so restarts keep working.
package final class BuiltInSimulator: Service {
    /// `apns-sim`, for logs.
    package let name = "apns-sim"
    /// The simulator.
    package let simulator: APNsSimulator
    /// Where it listens.
    package let endpoints: SimulatorEndpoints
    private let stateDirectory: URL
    private let logger: Logger

    private init(simulator: APNsSimulator, endpoints: SimulatorEndpoints, stateDirectory: URL, logger: Logger) {
        self.simulator = simulator
        self.endpoints = endpoints
        self.stateDirectory = stateDirectory
        self.logger = logger
    }

    /// Starts the simulator on loopback ports chosen by the system and writes `endpoints.json`.
    /// Run the returned service (e.g. in the service group) to serve until shutdown; it removes
    /// the file when it stops.
    package static func start(configuration: Configuration, logger: Logger) throws -> (BuiltInSimulator, SimulatorEndpoints) {
        let folder = BuiltInSimulatorFile.folder(stateDirectory: configuration.stateDirectory)
        var simulatorConfiguration = SimulatorConfiguration(host: "127.0.0.1", stateDirectory: folder.path)
        // Channels outlive a restart of `serve`, as they outlive one of scorecast at Apple.
        simulatorConfiguration.persistsState = true
        let simulator = try APNsSimulator(configuration: simulatorConfiguration, logger: logger.named("apns-sim"))
        let endpoints = try simulator.start()
        let service = BuiltInSimulator(simulator: simulator, endpoints: endpoints, stateDirectory: configuration.stateDirectory, logger: logger)
        do {
            try BuiltInSimulatorFile(pid: getpid(), endpoints: endpoints).write(stateDirectory: configuration.stateDirectory)
        } catch {
            throw RegistryError(
                .simulatorUnavailable,
                "cannot write \(BuiltInSimulatorFile.path(stateDirectory: configuration.stateDirectory).path): \(error.localizedDescription)")
        }
        logger.info("built-in APNs simulator started", [
            "send_port": String(endpoints.sendPort), "management_port": String(endpoints.managementPort),
            "admin_port": String(endpoints.adminPort)])
        return (service, endpoints)
    }

    /// Serves until `shutdown`, then stops the simulator and removes `endpoints.json`.
    package func run(until shutdown: ShutdownSignal) async throws {
        defer { BuiltInSimulatorFile.remove(stateDirectory: stateDirectory, ifOwnedBy: getpid()) }
        try await simulator.run(until: shutdown)
    }

    /// Registers every app's team key (the public half of its `.p8`) and bundle id. Apps whose
    /// key cannot be read are skipped with a warning; returns how many teams were registered.
    @discardableResult
    package func register(apps: [AppRecord]) -> Int {
        var registered = 0
        for team in Self.teams(for: apps, logger: logger) {
            do {
                try simulator.registerTeam(team)
                registered += 1
            } catch {
                logger.warning("the simulator refused a team", ["team": team.teamID, "key": team.keyID, "error": "\(error)"])
            }
        }
        return registered
    }

    /// The simulator teams that let `apps` in: one per team, key id and key file, with every
    /// bundle id using it. Apps whose key cannot be loaded are left out (with a warning).
    static func teams(for apps: [AppRecord], logger: Logger) -> [SimulatorTeam] {
        var teams: [SimulatorTeam] = []
        var publicKeys: [String: String] = [:]
        for app in apps {
            let publicKey: String
            if let known = publicKeys[app.keyPath] {
                publicKey = known
            } else {
                do {
                    publicKey = try P256PrivateKey(contentsOfFile: app.keyPath).publicKey.pem
                } catch {
                    logger.warning("cannot register an app with the built-in simulator: its key cannot be loaded", [
                        "bundle_id": app.bundleID, "environment": app.environment.rawValue, "error": "\(error)"])
                    continue
                }
                publicKeys[app.keyPath] = publicKey
            }
            if let index = teams.firstIndex(where: { $0.teamID == app.teamID && $0.keyID == app.keyID && $0.publicKeyPEM == publicKey }) {
                if !teams[index].bundleIDs.contains(app.bundleID) { teams[index].bundleIDs.append(app.bundleID) }
            } else {
                if teams.contains(where: { $0.keyID == app.keyID }) {
                    logger.warning("two apps use key id \(app.keyID) with different keys; the simulator keeps the last", [
                        "bundle_id": app.bundleID])
                }
                teams.append(SimulatorTeam(teamID: app.teamID, keyID: app.keyID, publicKeyPEM: publicKey, bundleIDs: [app.bundleID]))
            }
        }
        return teams
    }
}
