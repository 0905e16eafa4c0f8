import APNsSimulator
import CurlHTTP
import Foundation
import JSON
import Registry

/// A small client for the APNs simulator's admin API (plain HTTP/1.1 JSON on loopback): probe
/// it, read its teams, register a team. Used by CLI commands that talk to the simulator of a
/// `scorecast serve` running in another process.
///
/// Each request goes through the project's HTTP client (`CurlHTTPConnection`) on a thread of its
/// own, never on Swift's cooperative pool.
package struct BuiltInSimulatorAdmin: Sendable {
    /// The admin API's address.
    package let host: String
    /// The admin API's port.
    package let port: Int
    /// Deadline of one request (connect, send, receive).
    package var timeout: Duration = .seconds(3)

    /// A client for the admin API on `host:port`.
    package init(host: String = "127.0.0.1", port: Int) {
        self.host = host
        self.port = port
    }

    /// Whether the admin API answers `GET /settings` with 200.
    package func isAnswering() async -> Bool {
        (try? await request("GET", "/settings").status) == 200
    }

    /// The registered teams.
    package func teams() async throws -> [SimulatorTeam] {
        struct List: Decodable { let teams: [SimulatorTeam] }
        let answer = try await request("GET", "/teams")
        guard answer.status == 200, let list = try? JSONCoding.decode(List.self, from: answer.body) else {
            throw RegistryError(.simulatorUnavailable, "the simulator's admin API answered GET /teams with \(answer.status)")
        }
        return list.teams
    }

    /// Registers `team` (replacing a team with the same key id).
    package func register(_ team: SimulatorTeam) async throws {
        let body = try JSONCoding.encode(team)
        let answer = try await request("POST", "/teams", body: body)
        guard (200..<300).contains(answer.status) else {
            let detail = String(decoding: answer.body.prefix(300), as: UTF8.self)
            throw RegistryError(.simulatorUnavailable, "the simulator refused the team \(team.teamID)/\(team.keyID): \(answer.status) \(detail)")
        }
    }

    /// Registers `team`, first merging the bundle ids of a team already registered with the same
    /// key and public key, so adding an app never takes another app's access away.
    package func registerMerging(_ team: SimulatorTeam) async throws {
        var merged = team
        if let existing = try await teams().first(where: { $0.keyID == team.keyID && $0.teamID == team.teamID
            && $0.publicKeyPEM == team.publicKeyPEM })
        {
            for bundle in existing.bundleIDs where !merged.bundleIDs.contains(bundle) { merged.bundleIDs.append(bundle) }
        }
        try await register(merged)
    }

    /// Sends one request and returns the status and body.
    package func request(_ method: String, _ path: String, body: [UInt8] = []) async throws -> (status: Int, body: [UInt8]) {
        var headers: [(name: String, value: String)] = [("Accept", "application/json")]
        if method == "POST" || !body.isEmpty { headers.append(("Content-Type", "application/json")) }
        let shownHost = host.contains(":") ? "[\(host)]" : host
        do {
            let answer = try await CurlHTTPConnection.perform(
                CurlHTTPRequest(method: method, url: "http://\(shownHost):\(port)\(path)", headers: headers, body: body), timeout: timeout)
            return (answer.status, answer.body)
        } catch {
            throw RegistryError(.simulatorUnavailable, "the simulator's admin API at \(host):\(port) "
                + (error.timedOut ? "did not answer in time" : "cannot be reached: \(error.description)"))
        }
    }
}
