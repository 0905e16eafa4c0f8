import APNsSimulator
import Foundation
import JSON
import Registry

/// `<state>/apns-sim/endpoints.json`: where the built-in APNs simulator of a running
/// `scorecast serve` listens, so CLI commands in other processes can reach it.
///
/// `{"pid": 1234, "sendPort": …, "managementPort": …, "adminPort": …, "caCertificate": "…"}`.
/// Written when the simulator starts, removed when it stops (only by the process that wrote it).
package struct BuiltInSimulatorFile: Sendable, Equatable, Codable {
    /// The process running the simulator.
    package var pid: Int32
    /// The send port.
    package var sendPort: Int
    /// The channel-management port.
    package var managementPort: Int
    /// The admin API port.
    package var adminPort: Int
    /// The CA certificate clients must trust.
    package var caCertificate: String

    /// Creates the record for `endpoints` served by process `pid`.
    package init(pid: Int32, endpoints: SimulatorEndpoints) {
        self.pid = pid
        self.sendPort = endpoints.sendPort
        self.managementPort = endpoints.managementPort
        self.adminPort = endpoints.adminPort
        self.caCertificate = endpoints.caCertificatePath
    }

    /// The endpoints this file describes.
    package var endpoints: SimulatorEndpoints {
        SimulatorEndpoints(sendPort: sendPort, managementPort: managementPort, adminPort: adminPort, caCertificatePath: caCertificate)
    }

    /// The simulator's folder under the state folder: `<state>/apns-sim`.
    package static func folder(stateDirectory: URL) -> URL {
        stateDirectory.appendingPathComponent("apns-sim")
    }

    /// The file's path under the state folder.
    package static func path(stateDirectory: URL) -> URL {
        folder(stateDirectory: stateDirectory).appendingPathComponent("endpoints.json")
    }

    /// Writes the file atomically (a temporary file renamed over it).
    package func write(stateDirectory: URL) throws {
        let url = Self.path(stateDirectory: stateDirectory)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(JSONCoding.encode(self)).write(to: url, options: .atomic)
    }

    /// Reads the file; nil when there is none. A file that is not one of ours is an error.
    package static func read(stateDirectory: URL) throws -> BuiltInSimulatorFile? {
        let url = path(stateDirectory: stateDirectory)
        guard let data = FileManager.default.contents(atPath: url.path) else { return nil }
        do {
            return try JSONCoding.decode(BuiltInSimulatorFile.self, from: data)
        } catch {
            throw RegistryError(.simulatorUnavailable, "\(url.path) is not a simulator endpoints file; remove it and start `scorecast serve` again")
        }
    }

    /// Removes the file if it still describes process `pid` (a newer simulator's file stays).
    package static func remove(stateDirectory: URL, ifOwnedBy pid: Int32) {
        guard let current = try? read(stateDirectory: stateDirectory), current.pid == pid else { return }
        try? FileManager.default.removeItem(at: path(stateDirectory: stateDirectory))
    }

    /// Whether process `pid` exists (it may belong to another user).
    package static func processIsAlive(_ pid: Int32) -> Bool {
        guard pid > 0 else { return false }
        return kill(pid, 0) == 0 || errno == EPERM
    }
}
