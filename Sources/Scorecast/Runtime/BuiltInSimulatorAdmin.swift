import APNsSimulator
import Foundation

/// A small client for the APNs simulator's admin API (plain HTTP/1.1 JSON on loopback): probe
/// it, read its teams, register a team. Used by CLI commands that talk to the simulator of a
/// `scorecast serve` running in another process.
///
/// Each request opens one connection (`Connection: close`) and does its blocking socket I/O on
/// a thread of its own, never on Swift's cooperative pool.
public struct BuiltInSimulatorAdmin: Sendable {
    /// The admin API's address.
    public let host: String
    /// The admin API's port.
    public let port: Int
    /// Deadline of one request (connect, send, receive).
    public var timeout: Duration = .seconds(3)

    /// A client for the admin API on `host:port`.
    public init(host: String = "127.0.0.1", port: Int) {
        self.host = host
        self.port = port
    }

    /// Whether the admin API answers `GET /settings` with 200.
    public func isAnswering() async -> Bool {
        (try? await request("GET", "/settings").status) == 200
    }

    /// The registered teams.
    public func teams() async throws -> [SimulatorTeam] {
        struct List: Decodable { let teams: [SimulatorTeam] }
        let answer = try await request("GET", "/teams")
        guard answer.status == 200, let list = try? JSONDecoder().decode(List.self, from: Data(answer.body)) else {
            throw RegistryError(.simulatorUnavailable, "the simulator's admin API answered GET /teams with \(answer.status)")
        }
        return list.teams
    }

    /// Registers `team` (replacing a team with the same key id).
    public func register(_ team: SimulatorTeam) async throws {
        let body = try JSONEncoder().encode(team)
        let answer = try await request("POST", "/teams", body: Array(body))
        guard (200..<300).contains(answer.status) else {
            let detail = String(decoding: answer.body.prefix(300), as: UTF8.self)
            throw RegistryError(.simulatorUnavailable, "the simulator refused the team \(team.teamID)/\(team.keyID): \(answer.status) \(detail)")
        }
    }

    /// Registers `team`, first merging the bundle ids of a team already registered with the same
    /// key and public key, so adding an app never takes another app's access away.
    public func registerMerging(_ team: SimulatorTeam) async throws {
        var merged = team
        if let existing = try await teams().first(where: { $0.keyID == team.keyID && $0.teamID == team.teamID
            && $0.publicKeyPEM == team.publicKeyPEM })
        {
            for bundle in existing.bundleIDs where !merged.bundleIDs.contains(bundle) { merged.bundleIDs.append(bundle) }
        }
        try await register(merged)
    }

    /// Sends one request and returns the status and body.
    public func request(_ method: String, _ path: String, body: [UInt8] = []) async throws -> (status: Int, body: [UInt8]) {
        let host = host, port = port
        let millis = Int(timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000)
        let result: Result<(Int, [UInt8]), RegistryError> = await withCheckedContinuation { continuation in
            let thread = Thread {
                continuation.resume(returning: Self.exchange(host: host, port: port, method: method, path: path, body: body, timeoutMillis: millis))
            }
            thread.name = "apns-sim-admin"
            thread.start()
        }
        let (status, bytes) = try result.get()
        return (status, bytes)
    }

    // MARK: - Blocking I/O (own thread)

    private static func exchange(host: String, port: Int, method: String, path: String, body: [UInt8],
                                 timeoutMillis: Int) -> Result<(Int, [UInt8]), RegistryError> {
        func failure(_ what: String) -> Result<(Int, [UInt8]), RegistryError> {
            .failure(RegistryError(.simulatorUnavailable, "the simulator's admin API at \(host):\(port) \(what)"))
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(clamping: port)).bigEndian
        guard inet_pton(AF_INET, host, &address.sin_addr) == 1 else { return failure("is not an IPv4 address") }
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return failure("cannot be reached: no socket (\(String(cString: strerror(errno))))") }
        defer { close(descriptor) }
        var interval = timeval(tv_sec: timeoutMillis / 1000, tv_usec: Int((timeoutMillis % 1000) * 1000))
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &interval, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &interval, socklen_t(MemoryLayout<timeval>.size))
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { return failure("does not answer (\(String(cString: strerror(errno))))") }

        var request = Array("\(method) \(path) HTTP/1.1\r\nHost: \(host):\(port)\r\nAccept: application/json\r\nConnection: close\r\n".utf8)
        if !body.isEmpty || method == "POST" {
            request += Array("Content-Type: application/json\r\nContent-Length: \(body.count)\r\n".utf8)
        }
        request += Array("\r\n".utf8) + body
        var sent = 0
        while sent < request.count {
            let count = request[sent...].withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return failure("closed the connection while the request was sent") }
            sent += count
        }
        var response: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16_384)
        while true {
            let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count < 0 && errno == EINTR { continue }
            if count < 0 { return failure("did not answer in time") }
            if count == 0 { break }
            response += chunk[0..<count]
            if response.count > 4 << 20 { return failure("sent an answer larger than 4 MiB") }
        }
        guard let parsed = HTTPAnswer.parse(response) else { return failure("sent something that is not an HTTP/1.1 answer") }
        return .success(parsed)
    }
}

/// Parses a complete HTTP/1.1 response read until the connection closed. Pure.
enum HTTPAnswer {
    /// The status and body (de-chunked when `Transfer-Encoding: chunked`), or nil.
    static func parse(_ bytes: [UInt8]) -> (Int, [UInt8])? {
        let separator: [UInt8] = [13, 10, 13, 10]
        guard let end = bytes.indices.dropLast(3).first(where: { Array(bytes[$0..<($0 + 4)]) == separator }) else { return nil }
        let head = String(decoding: bytes[..<end], as: UTF8.self).components(separatedBy: "\r\n")
        let statusParts = head.first?.split(separator: " ") ?? []
        guard statusParts.count >= 2, statusParts[0].hasPrefix("HTTP/1."), let status = Int(statusParts[1]) else { return nil }
        var body = Array(bytes[(end + 4)...])
        let chunked = head.dropFirst().contains { line in
            let lower = line.lowercased()
            return lower.hasPrefix("transfer-encoding:") && lower.contains("chunked")
        }
        if chunked {
            guard let decoded = dechunk(body) else { return nil }
            body = decoded
        } else if let lengthLine = head.dropFirst().first(where: { $0.lowercased().hasPrefix("content-length:") }),
                  let length = Int(lengthLine.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)),
                  length <= body.count
        {
            body = Array(body.prefix(length))
        }
        return (status, body)
    }

    private static func dechunk(_ bytes: [UInt8]) -> [UInt8]? {
        var output: [UInt8] = []
        var index = 0
        while index < bytes.count {
            guard let lineEnd = (index..<(bytes.count - 1)).first(where: { bytes[$0] == 13 && bytes[$0 + 1] == 10 }) else { return nil }
            let sizeText = String(decoding: bytes[index..<lineEnd], as: UTF8.self).split(separator: ";").first ?? ""
            guard let size = Int(sizeText.trimmingCharacters(in: .whitespaces), radix: 16) else { return nil }
            index = lineEnd + 2
            if size == 0 { return output }
            guard index + size <= bytes.count else { return nil }
            output += bytes[index..<(index + size)]
            index += size + 2
        }
        return output
    }
}
