import Synchronization

/// Which of its two hosts an APNs client's connection goes to.
public enum APNsHost: String, Sendable, CaseIterable {
    /// Broadcasts and device pushes (`api[.sandbox].push.apple.com`).
    case send
    /// Channel management (`api-manage-broadcast…`).
    case management
}

/// Told each time one of a client's connections to APNs opens (`delta` 1) or closes (`delta`
/// -1). Called on the client's curl thread: keep it quick and never block.
public protocol APNsConnectionObserver: Sendable {
    /// A connection to `host` opened or closed.
    func connectionsChanged(host: APNsHost, delta: Int)
}

/// The connections a transport holds open, per endpoint, counted where libcurl opens and
/// closes their sockets (`CURLOPT_OPENSOCKETFUNCTION` / `CURLOPT_CLOSESOCKETFUNCTION`), so the
/// figure is libcurl's own, not an estimate: every socket libcurl opens for a connection is
/// closed through the callback (a broken connection, a GOAWAY, the idle age limit, shutdown).
/// A connection counts from its TCP connect; a connection attempt that fails counts until
/// libcurl closes its socket, which is at once.
final class OpenConnections: Sendable {
    private let counts = Mutex<[APNsEndpoint: Int]>([:])
    private let onChange: @Sendable (APNsEndpoint, Int) -> Void

    /// - Parameter onChange: told of every change (endpoint and ±1), on the curl thread.
    init(onChange: @escaping @Sendable (APNsEndpoint, Int) -> Void = { _, _ in }) {
        self.onChange = onChange
    }

    /// Connections open to `endpoint` now.
    func count(to endpoint: APNsEndpoint) -> Int {
        counts.withLock { $0[endpoint, default: 0] }
    }

    func changed(_ endpoint: APNsEndpoint, by delta: Int) {
        counts.withLock { $0[endpoint, default: 0] += delta }
        onChange(endpoint, delta)
    }
}

/// What libcurl's socket callbacks get as their user data: the endpoint a connection was
/// opened for and the tally to tell. libcurl keeps the close callback and its user data of the
/// transfer that opened a connection with the connection itself, so the close is counted
/// against the same endpoint whichever transfer used it last.
///
/// Kept alive by the curl thread (`CurlEventLoop`) until after `curl_multi_cleanup`, the last
/// moment libcurl may close a socket.
final class SocketAccount {
    let endpoint: APNsEndpoint
    let tally: OpenConnections

    init(endpoint: APNsEndpoint, tally: OpenConnections) {
        self.endpoint = endpoint
        self.tally = tally
    }
}
