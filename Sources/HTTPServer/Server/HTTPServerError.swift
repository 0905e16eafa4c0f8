/// Why an `HTTPServer` could not start.
public struct HTTPServerError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong, broadly.
    public enum Code: String, Sendable, Hashable {
        /// A configuration value is out of range.
        case invalidConfiguration
        /// The host is not a numeric IPv4 or IPv6 address (or `localhost`).
        case invalidHost
        /// libmicrohttpd could not start: the port is taken, the address is not local…
        case startFailed
        /// `start()` was called on a server that is running or has stopped.
        case alreadyStarted
    }

    /// The kind of failure.
    public let code: Code
    /// A sentence for operators.
    public let message: String

    /// Creates an error.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// `startFailed: could not listen on 127.0.0.1:8080 (…)`.
    public var description: String { "\(code.rawValue): \(message)" }
}
