import Foundation

/// Which proxy, if any, the APNs client's connections go through. libcurl opens an HTTP
/// `CONNECT` tunnel (or a SOCKS one) and speaks TLS and HTTP/2 with APNs inside it.
///
/// A proxy URL may carry credentials (`http://user:password@proxy:3128`): they go to libcurl
/// only; ``description`` and every error show the address without the password.
public enum APNsProxy: Sendable, Hashable, CustomStringConvertible {
    /// libcurl's standard variables decide: `https_proxy` / `HTTPS_PROXY` (or `all_proxy`),
    /// with `no_proxy` / `NO_PROXY` naming hosts reached directly.
    case environment
    /// Straight to the endpoints whatever the environment says (the built-in simulator on
    /// loopback).
    case direct
    /// Through this proxy, e.g. `http://proxy.internal:3128`; `NO_PROXY` still applies.
    case url(String)

    /// The schemes libcurl accepts for a proxy.
    static let schemes: Set<String> = ["http", "https", "socks4", "socks4a", "socks5", "socks5h"]

    /// The address without its password, e.g. `http://scorecast:***@proxy.internal:3128`.
    public var description: String {
        switch self {
        case .environment: return "the environment's HTTPS_PROXY / NO_PROXY"
        case .direct: return "no proxy"
        case .url(let text):
            guard let parts = Self.parse(text) else { return "an unusable proxy URL (not shown)" }
            let user = parts.user.map { "\($0):***@" } ?? ""
            return "\(parts.scheme)://\(user)\(parts.host):\(parts.port)"
        }
    }

    /// Checks the URL; the message never repeats it (it may hold a password).
    public func validate() throws(APNsClientError) {
        guard case .url(let text) = self else { return }
        guard Self.parse(text) != nil else {
            throw APNsClientError(.invalidConfiguration, "the proxy must be a URL such as http://proxy.internal:3128 "
                + "(scheme http, https, socks4, socks4a, socks5 or socks5h; value not shown: it may hold a password)")
        }
    }

    /// What `CURLOPT_PROXY` gets: `nil` leaves libcurl reading the environment, an empty
    /// string turns every proxy off.
    var curlValue: String? {
        switch self {
        case .environment: nil
        case .direct: ""
        case .url(let text): text
        }
    }

    private static func parse(_ text: String) -> (scheme: String, user: String?, host: String, port: Int)? {
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased(),
              schemes.contains(scheme), let host = components.host, !host.isEmpty,
              components.path.isEmpty || components.path == "/", components.query == nil
        else { return nil }
        // libcurl's defaults: 1080 for every scheme without a port (443 for https).
        let port = components.port ?? (scheme == "https" ? 443 : 1080)
        guard (1...65535).contains(port) else { return nil }
        return (scheme, components.user, host, port)
    }
}
