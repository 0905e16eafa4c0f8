import Foundation

/// What went wrong starting, configuring or controlling the simulator. Descriptions name the
/// offending input and never contain a token or a key.
public enum SimulatorError: Error, Equatable, CustomStringConvertible {
    /// A system call failed: the call's name and `errno`.
    case system(String, Int32)
    /// TLS setup failed: what was being done and OpenSSL's error text.
    case tls(String, String)
    /// HTTP/2 setup failed: what was being done and nghttp2's error text.
    case http2(String, String)
    /// A port could not be bound: the address, the port and `errno`.
    case bind(host: String, port: Int, errno: Int32)
    /// A configuration value or command-line argument is wrong: which one and why.
    case invalidConfiguration(String)
    /// A file could not be read or written: its path and why.
    case file(path: String, reason: String)
    /// A team's public key could not be used: the team, the key id and why.
    case invalidTeamKey(teamID: String, keyID: String, reason: String)
    /// `start()` was called twice, or a control method needs a running simulator.
    case state(String)

    /// A short machine-readable code for the case.
    public var code: String {
        switch self {
        case .system: "system"
        case .tls: "tls"
        case .http2: "http2"
        case .bind: "bind"
        case .invalidConfiguration: "invalid_configuration"
        case .file: "file"
        case .invalidTeamKey: "invalid_team_key"
        case .state: "state"
        }
    }

    /// A one-line explanation naming the input at fault.
    public var description: String {
        switch self {
        case let .system(call, number):
            "\(call) failed: \(String(cString: strerror(number))) (errno \(number))"
        case let .tls(what, detail):
            "TLS: \(what) failed: \(detail)"
        case let .http2(what, detail):
            "HTTP/2: \(what) failed: \(detail)"
        case let .bind(host, port, number):
            "cannot listen on \(host):\(port): \(String(cString: strerror(number)))"
        case let .invalidConfiguration(reason):
            "invalid configuration: \(reason)"
        case let .file(path, reason):
            "\(path): \(reason)"
        case let .invalidTeamKey(teamID, keyID, reason):
            "team \(teamID) key \(keyID): \(reason)"
        case let .state(reason):
            reason
        }
    }
}
