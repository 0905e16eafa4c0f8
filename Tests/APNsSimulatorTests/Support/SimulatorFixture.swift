import APNsSimulator
import Foundation
import Lifecycle
import ScorecastLogging
import TestSupport

/// One HTTP response as the `curl` CLI saw it.
struct CurlResponse: Sendable {
    let status: Int
    /// Header names lower-case; the last value wins.
    let headers: [String: String]
    let body: String

    /// The `reason` of an APNs failure body.
    var reason: String? { json?["reason"] as? String }

    /// The body parsed as a JSON object.
    var json: [String: Any]? {
        (try? JSONSerialization.jsonObject(with: Data(body.utf8))) as? [String: Any]
    }

    /// Parses `curl -i` output (status line, headers, blank line, body).
    static func parse(_ output: String) throws -> CurlResponse {
        guard let split = output.range(of: "\r\n\r\n") else { throw FixtureError("no header block in curl output: \(output)") }
        let head = output[..<split.lowerBound].components(separatedBy: "\r\n")
        guard let statusLine = head.first, let statusText = statusLine.split(separator: " ").dropFirst().first,
              let status = Int(statusText) else {
            throw FixtureError("no status line in curl output: \(output)")
        }
        var headers: [String: String] = [:]
        for line in head.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return CurlResponse(status: status, headers: headers, body: String(output[split.upperBound...]))
    }
}

/// A running simulator with one registered team, and ways to talk to it with the real `curl`.
struct SimulatorFixture: Sendable {
    let simulator: APNsSimulator
    let endpoints: SimulatorEndpoints
    let key: TeamKey
    let bundleID: String

    var sendURL: String { "https://localhost:\(endpoints.sendPort)" }
    var managementURL: String { "https://localhost:\(endpoints.managementPort)" }
    var adminURL: String { "http://127.0.0.1:\(endpoints.adminPort)" }

    /// Starts a simulator (ports picked by the system, a fresh state folder) for team key `key`
    /// allowed to use `bundleID`, runs `body`, and stops it.
    static func with(
        bundleID: String = "com.example.scores",
        configure: (inout SimulatorConfiguration) -> Void = { _ in },
        _ body: (SimulatorFixture) async throws -> Void
    ) async throws {
        let key = try await TeamKeys.shared.key()
        var configuration = SimulatorConfiguration(
            stateDirectory: try TemporaryFolder("apns-sim-state").path,
            teams: [key.team(bundleIDs: [bundleID])])
        configure(&configuration)
        let logger = Logger(label: "apns-sim-test", level: .warning)
        let simulator = try APNsSimulator(configuration: configuration, logger: logger)
        let endpoints = try simulator.start()
        let fixture = SimulatorFixture(simulator: simulator, endpoints: endpoints, key: key, bundleID: bundleID)
        let shutdown = ShutdownSignal()
        try await whileRunning("the APNs simulator", { try await simulator.run(until: shutdown) }, stop: shutdown.trigger) {
            try await body(fixture)
        }
    }

    // MARK: - curl

    /// Runs `curl --http2 --cacert <CA> -sS -i <arguments>` and parses the one response.
    func curl(_ arguments: [String]) async throws -> CurlResponse {
        let output = try await ExternalTool.run("curl", ["--http2", "--cacert", endpoints.caCertificatePath, "-sS", "-i"] + arguments)
        guard output.status == 0 else { throw FixtureError("curl exited \(output.status): \(output.stderr)") }
        return try CurlResponse.parse(output.stdout)
    }

    /// Several requests on one connection: `transfers` are argument lists joined with `--next`;
    /// each answer's status and body are read back through a `-w` marker.
    func curlOnOneConnection(_ transfers: [[String]]) async throws -> [(status: Int, body: String)] {
        var arguments: [String] = []
        for (index, transfer) in transfers.enumerated() {
            if index > 0 { arguments.append("--next") }
            arguments += ["--http2", "--cacert", endpoints.caCertificatePath, "-sS", "-w", "\n@@STATUS %{http_code}@@\n"] + transfer
        }
        let output = try await ExternalTool.run("curl", arguments)
        guard output.status == 0 else { throw FixtureError("curl exited \(output.status): \(output.stderr)") }
        var results: [(Int, String)] = []
        var rest = Substring(output.stdout)
        while let marker = rest.range(of: "\n@@STATUS ") {
            let body = String(rest[..<marker.lowerBound])
            let after = rest[marker.upperBound...]
            guard let end = after.range(of: "@@\n"), let status = Int(after[..<end.lowerBound]) else { break }
            results.append((status, body))
            rest = after[end.upperBound...]
        }
        return results
    }

    /// A fresh provider token of the fixture's team.
    func token(issuedAt: Int = Int(Date().timeIntervalSince1970)) throws -> String { try key.token(issuedAt: issuedAt) }

    /// Creates a channel through the management port (as Apple's curl example does); returns its id.
    func createChannel(policy: Int = 0, token: String? = nil) async throws -> String {
        let response = try await curl([
            "--header", "authorization: bearer \(try token ?? self.token())",
            "--data", #"{"message-storage-policy": \#(policy), "push-type": "LiveActivity"}"#,
            "\(managementURL)/1/apps/\(bundleID)/channels",
        ])
        guard response.status == 201, let id = response.headers["apns-channel-id"] else {
            throw FixtureError("channel creation answered \(response.status) \(response.body)")
        }
        return id
    }

    /// Sends a broadcast with every header apns.md requires, each overridable (`nil` omits it).
    func broadcast(
        channelID: String?, pushType: String? = "liveactivity", priority: String? = "10", expiration: String? = "0",
        payload: String = Self.updatePayload, bundleID: String? = nil, token: String? = nil, extra: [String] = []
    ) async throws -> CurlResponse {
        var arguments: [String] = []
        if let channelID { arguments += ["--header", "apns-channel-id: \(channelID)"] }
        if let pushType { arguments += ["--header", "apns-push-type: \(pushType)"] }
        if let priority { arguments += ["--header", "apns-priority: \(priority)"] }
        if let expiration { arguments += ["--header", "apns-expiration: \(expiration)"] }
        arguments += ["--header", "authorization: bearer \(try token ?? self.token())"]
        arguments += extra
        arguments += ["--data-binary", payload, "\(sendURL)/4/broadcasts/apps/\(bundleID ?? self.bundleID)"]
        return try await curl(arguments)
    }

    /// A Live Activity update like apns.md §4's.
    static let updatePayload = #"{"aps":{"timestamp":1764453600,"event":"update","content-state":{"homeScore":2,"awayScore":1,"period":"2H","clock":"67'"},"stale-date":1764454200,"relevance-score":75}}"#

    // MARK: - Admin API

    /// Calls the admin API with curl; returns status and the JSON body (if any).
    func admin(_ method: String, _ path: String, body: String? = nil) async throws -> CurlResponse {
        var arguments = ["-sS", "-i", "-X", method]
        if let body { arguments += ["-H", "content-type: application/json", "--data-binary", body] }
        let output = try await ExternalTool.run("curl", arguments + ["\(adminURL)\(path)"])
        guard output.status == 0 else { throw FixtureError("curl exited \(output.status): \(output.stderr)") }
        return try CurlResponse.parse(output.stdout)
    }
}
