import APNsSimulator
import Foundation
import Registry
import ScorecastCrypto

extension BuiltInSimulatorAdmin {
    /// What ``registerWithRunningSimulator(_:publicKeyPEM:stateDirectory:)`` did.
    package enum AppRegistration: Sendable, Equatable {
        /// The running simulator now accepts the app's key for its bundle id.
        case registered
        /// No `serve` with the built-in simulator runs: its next start registers every app.
        case notRunning
        /// The app's key file could not be read to derive the public key.
        case keyUnreadable
        /// The simulator's admin API refused or did not answer (the reason).
        case failed(String)
    }

    /// Registers `app`'s key (`publicKeyPEM`, or the public half of its key file) with the
    /// built-in simulator of a `serve` running from `stateDirectory`, keeping the bundle ids
    /// already registered for the same key. Never throws: the app is recorded either way, and the
    /// next `serve` registers it at start.
    package static func registerWithRunningSimulator(
        _ app: AppRecord, publicKeyPEM: String?, stateDirectory: URL
    ) async -> AppRegistration {
        guard let file = try? BuiltInSimulatorFile.read(stateDirectory: stateDirectory),
              BuiltInSimulatorFile.processIsAlive(file.pid)
        else {
            return .notRunning
        }
        let pem: String
        if let publicKeyPEM {
            pem = publicKeyPEM
        } else {
            guard let key = try? P256PrivateKey(contentsOfFile: app.keyPath) else { return .keyUnreadable }
            pem = key.publicKey.pem
        }
        let team = SimulatorTeam(teamID: app.teamID, keyID: app.keyID, publicKeyPEM: pem, bundleIDs: [app.bundleID])
        do {
            try await BuiltInSimulatorAdmin(port: file.adminPort).registerMerging(team)
            return .registered
        } catch {
            return .failed("\(error)")
        }
    }
}
