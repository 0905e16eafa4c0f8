import Clocks
import APNsCore

/// Everything an `APNsClient` needs to know besides credentials.
public struct APNsClientConfiguration: Sendable, Hashable {
    /// Where broadcasts and device pushes go.
    public var sendEndpoint: APNsEndpoint
    /// Where channel management goes.
    public var managementEndpoint: APNsEndpoint
    /// Connections per host (each carries many streams). 1–16; default 2.
    public var maxConnectionsPerHost: Int = 2
    /// The most streams the client opens on one connection (1–1,000; default 100). The server's
    /// own SETTINGS limit applies on top when it is lower.
    public var maxConcurrentStreams: Int = 100
    /// The deadline of every request, from the call until the answer, queueing and retries of
    /// unprocessed requests included. Default 10 s.
    public var requestTimeout: Duration = .seconds(10)
    /// The longest a new connection (TCP + TLS) may take, within the request's deadline. Default 5 s.
    public var connectTimeout: Duration = .seconds(5)
    /// Age at which the provider token is renewed: 20–59 minutes, default 40.
    public var tokenRenewalAge: Duration = TokenCache.defaultRenewalAge
    /// How often a request whose connection broke (GOAWAY, reset, closed) is sent again on a
    /// fresh connection, within its deadline, before the failure is returned. A request the
    /// server certainly never processed is always eligible; because delivery is at least once,
    /// broadcasts, device pushes, reads and lists are eligible even when the server may have
    /// processed them. Channel creation and deletion are never sent twice. 0–5; default 2.
    public var maxConnectionRetries: Int = 2
    /// How long an idle connection is kept for reuse; APNs wants connections kept for hours.
    /// Default 6 hours.
    public var idleConnectionMaxAge: Duration = .seconds(6 * 3600)
    /// Idle time before TCP keepalive probes start, and between probes: a peer that vanished
    /// is noticed on a quiet connection (libcurl also checks a cached connection before reusing
    /// it). Default 60 s.
    public var keepAliveInterval: Duration = .seconds(60)
    /// The largest response body accepted (APNs bodies are tiny; a list of 10,000 channel ids is
    /// the largest). Default 2 MiB.
    public var maxResponseBytes: Int = 2 << 20
    /// The proxy connections go through. Default: the environment's `HTTPS_PROXY` / `NO_PROXY`,
    /// as libcurl reads them.
    public var proxy: APNsProxy = .environment

    /// A configuration for two explicit endpoints (for example the simulator's ports).
    public init(sendEndpoint: APNsEndpoint, managementEndpoint: APNsEndpoint) {
        self.sendEndpoint = sendEndpoint
        self.managementEndpoint = managementEndpoint
    }

    /// Apple's hosts for `environment` (apns.md §1).
    public init(environment: APNsEnvironment) {
        self.init(
            sendEndpoint: APNsEndpoint(host: environment.defaultSendHost, port: environment.defaultSendPort),
            managementEndpoint: APNsEndpoint(host: environment.defaultManagementHost, port: environment.defaultManagementPort))
    }

    /// Checks every setting; the message names the first one out of range.
    public func validate() throws(APNsClientError) {
        try sendEndpoint.validate()
        try managementEndpoint.validate()
        func require(_ condition: Bool, _ message: String) throws(APNsClientError) {
            if !condition { throw APNsClientError(.invalidConfiguration, message) }
        }
        try require((1...16).contains(maxConnectionsPerHost), "maxConnectionsPerHost must be 1–16, got \(maxConnectionsPerHost)")
        try require((1...1000).contains(maxConcurrentStreams), "maxConcurrentStreams must be 1–1000, got \(maxConcurrentStreams)")
        try require(requestTimeout >= .milliseconds(10) && requestTimeout <= .seconds(600),
                    "requestTimeout must be 10 ms–600 s, got \(requestTimeout)")
        try require(connectTimeout >= .milliseconds(10) && connectTimeout <= .seconds(600),
                    "connectTimeout must be 10 ms–600 s, got \(connectTimeout)")
        try require(tokenRenewalAge >= TokenCache.minimumRenewalAge && tokenRenewalAge <= TokenCache.maximumRenewalAge,
                    "tokenRenewalAge must be 20–59 minutes, got \(tokenRenewalAge)")
        try require((0...5).contains(maxConnectionRetries), "maxConnectionRetries must be 0–5, got \(maxConnectionRetries)")
        try require(idleConnectionMaxAge >= .seconds(1) && idleConnectionMaxAge <= .seconds(86_400),
                    "idleConnectionMaxAge must be 1 s–24 h, got \(idleConnectionMaxAge)")
        try require(keepAliveInterval >= .seconds(1) && keepAliveInterval <= .seconds(7200),
                    "keepAliveInterval must be 1 s–2 h, got \(keepAliveInterval)")
        try require((1024...(64 << 20)).contains(maxResponseBytes), "maxResponseBytes must be 1 KiB–64 MiB, got \(maxResponseBytes)")
        try proxy.validate()
    }

    /// The transport's settings, its deadlines and ages read on `clock`.
    func transportOptions(clock: any ServiceClock) -> TransportOptions {
        TransportOptions(
            maxConnectionsPerHost: maxConnectionsPerHost, maxConcurrentStreams: maxConcurrentStreams,
            connectTimeout: connectTimeout, maxConnectionRetries: maxConnectionRetries,
            idleConnectionMaxAgeSeconds: Int(idleConnectionMaxAge.components.seconds),
            keepAliveIdleSeconds: Int(keepAliveInterval.components.seconds),
            keepAliveIntervalSeconds: Int(keepAliveInterval.components.seconds),
            maxResponseBytes: maxResponseBytes, proxy: proxy.curlValue, clock: clock)
    }
}
