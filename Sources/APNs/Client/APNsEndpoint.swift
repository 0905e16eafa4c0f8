/// Where one kind of APNs request goes: a host, a port and, for local servers such as the
/// simulator, the CA certificate that signed the server's certificate.
///
/// The send host (broadcasts and device pushes) and the channel-management host are separate
/// endpoints with separate connection pools (`apns.md` §1).
public struct APNsEndpoint: Sendable, Hashable, CustomStringConvertible {
    /// The DNS name or address to connect to, e.g. `api.push.apple.com` or `127.0.0.1`.
    public var host: String
    /// The TCP port.
    public var port: Int
    /// A PEM file of CA certificates to trust instead of the system store; `nil` uses the
    /// system's trust store (what Apple's hosts need).
    public var caFile: String?

    /// Creates an endpoint.
    public init(host: String, port: Int, caFile: String? = nil) {
        self.host = host
        self.port = port
        self.caFile = caFile
    }

    /// Apple's production send host (broadcasts and device pushes).
    public static let productionSend = APNsEndpoint(host: "api.push.apple.com", port: 443)
    /// Apple's sandbox send host (broadcasts and device pushes).
    public static let sandboxSend = APNsEndpoint(host: "api.sandbox.push.apple.com", port: 443)
    /// Apple's production channel-management host.
    public static let productionManagement = APNsEndpoint(host: "api-manage-broadcast.push.apple.com", port: 2196)
    /// Apple's sandbox channel-management host.
    public static let sandboxManagement = APNsEndpoint(host: "api-manage-broadcast.sandbox.push.apple.com", port: 2195)

    /// `https://host:port`, with an IPv6 literal in brackets.
    public var baseURL: String {
        let shownHost = host.utf8.contains(UInt8(ascii: ":")) && !host.hasPrefix("[") ? "[\(host)]" : host
        return "https://\(shownHost):\(port)"
    }

    /// `host:port`: the key of this endpoint's connection pool.
    public var description: String { "\(host):\(port)" }

    /// Checks that the endpoint can be turned into a URL; the message names what is wrong.
    func validate() throws(APNsClientError) {
        guard !host.isEmpty, host.unicodeScalars.allSatisfy({ Self.hostScalars.contains($0) }) else {
            throw APNsClientError(.invalidConfiguration, "endpoint host \"\(host)\" is not a host name or address")
        }
        guard (1...65535).contains(port) else {
            throw APNsClientError(.invalidConfiguration, "endpoint port \(port) is outside 1...65535")
        }
        if let caFile, caFile.isEmpty || caFile.utf8.contains(0) {
            throw APNsClientError(.invalidConfiguration, "endpoint CA file path is empty or malformed")
        }
    }

    private static let hostScalars: Set<Unicode.Scalar> = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-:[]".unicodeScalars)
}
