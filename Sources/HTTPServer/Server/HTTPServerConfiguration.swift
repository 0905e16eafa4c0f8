import Foundation

/// How an `HTTPServer` listens and what it accepts.
public struct HTTPServerConfiguration: Sendable, Hashable {
    /// The numeric address to bind: IPv4 (`127.0.0.1`, `0.0.0.0` for every interface) or IPv6
    /// (`::1`, `::`); `localhost` means `127.0.0.1`. Default `127.0.0.1`.
    public var host: String
    /// The TCP port; `0` lets the system pick a free one (read it from `HTTPServer.port` after
    /// `start()`). Default `8080`.
    public var port: Int
    /// The largest accepted request body in bytes unless a route sets its own; larger bodies
    /// are answered `413`. Default 1 MiB.
    public var maxBodyBytes: Int
    /// Seconds a connection may stay without any bytes arriving or leaving (a slow or silent
    /// client, an idle keep-alive connection) before it is closed. Does not bound a handler's
    /// own run time. Default 30.
    public var connectionTimeoutSeconds: Int
    /// Threads that read, parse and write HTTP (libmicrohttpd's pool); handlers run on Swift's
    /// concurrency pool, not on these. Default: the number of processors, at least 2.
    public var threadCount: Int
    /// The most connections open at once; further ones are closed on arrival. Each takes a file
    /// descriptor, so keep it below the process's limit (`ulimit -n`). libmicrohttpd shares
    /// it out among the `threadCount` threads. Default 1000.
    public var maxConnections: Int
    /// The most connections open at once from one client address; further ones from it are
    /// closed on arrival, so that one client cannot take every connection. `0`: no cap.
    /// Default 100.
    public var maxConnectionsPerAddress: Int
    /// The most bytes a request's header fields may take together (names and values); more
    /// are answered `431` problem+json. Each connection's buffer is sized from it
    /// (`connectionMemoryBytes`, 256 KiB at the default); header blocks too large even for
    /// that buffer (measured at the default: one field over about 255 KiB, or more than
    /// about 1,960 fields of 66 bytes) get libmicrohttpd's own `431`, a short HTML page.
    /// Default 32 KiB.
    public var maxHeaderBytes: Int
    /// Seconds from a connection's opening (or its previous response) within which a request's
    /// headers must have arrived in full; a client still sending them is cut off. Unlike
    /// `connectionTimeoutSeconds` this is a deadline, not an idle timeout: trickling bytes
    /// does not extend it. Default 10.
    public var headerTimeoutSeconds: Int
    /// Seconds from a request's headers within which its body must have arrived in full.
    /// Default 60.
    public var bodyTimeoutSeconds: Int
    /// The slowest average rate, in bytes a second, at which a body may arrive once
    /// `bodyRateGracePeriod` has passed since its headers; a slower one is answered `408` and
    /// its connection closed, long before `bodyTimeoutSeconds`. `0`: no minimum. Default 1024.
    public var minimumBodyBytesPerSecond: Int
    /// How long after its headers a body's rate starts to count (a client's first packets may
    /// lag). Default 5 s.
    public var bodyRateGracePeriod: Duration
    /// Connections refused at the caps or cut at a deadline are logged as one summary line per
    /// this interval (never one line each). Default 10 s.
    public var refusalSummaryInterval: Duration
    /// Whether to write one `info` line per request (method, path without query, status,
    /// bytes, duration, request id). Default `true`.
    public var accessLog: Bool
    /// On shutdown, how long requests already received may take to finish before they are
    /// answered `503` and the server stops. Default 5 s.
    public var shutdownGracePeriod: Duration

    /// Creates a configuration; every parameter has the documented default.
    public init(
        host: String = "127.0.0.1",
        port: Int = 8080,
        maxBodyBytes: Int = 1 << 20,
        connectionTimeoutSeconds: Int = 30,
        threadCount: Int = max(2, ProcessInfo.processInfo.activeProcessorCount),
        maxConnections: Int = 1000,
        maxConnectionsPerAddress: Int = 100,
        maxHeaderBytes: Int = 32 << 10,
        headerTimeoutSeconds: Int = 10,
        bodyTimeoutSeconds: Int = 60,
        minimumBodyBytesPerSecond: Int = 1024,
        bodyRateGracePeriod: Duration = .seconds(5),
        refusalSummaryInterval: Duration = .seconds(10),
        accessLog: Bool = true,
        shutdownGracePeriod: Duration = .seconds(5)
    ) {
        self.host = host
        self.port = port
        self.maxBodyBytes = maxBodyBytes
        self.connectionTimeoutSeconds = connectionTimeoutSeconds
        self.threadCount = threadCount
        self.maxConnections = maxConnections
        self.maxConnectionsPerAddress = maxConnectionsPerAddress
        self.maxHeaderBytes = maxHeaderBytes
        self.headerTimeoutSeconds = headerTimeoutSeconds
        self.bodyTimeoutSeconds = bodyTimeoutSeconds
        self.minimumBodyBytesPerSecond = minimumBodyBytesPerSecond
        self.bodyRateGracePeriod = bodyRateGracePeriod
        self.refusalSummaryInterval = refusalSummaryInterval
        self.accessLog = accessLog
        self.shutdownGracePeriod = shutdownGracePeriod
    }

    /// Each connection's libmicrohttpd buffer: room for a header block well over the limit, so
    /// that blocks over it still reach the server and get its `431` problem. libmicrohttpd
    /// keeps about 56 bytes of its own per header field besides the text, so a flood of small
    /// fields needs about twice its size: 1,000 fields of 70 bytes overflowed 128 KiB.
    var connectionMemoryBytes: Int { max(256 << 10, maxHeaderBytes * 8) }

    /// The first problem with the settings, or `nil` when they are usable.
    func validationError() -> String? {
        if !(0...65535).contains(port) { return "port \(port) is outside 0...65535" }
        if maxBodyBytes < 0 { return "maxBodyBytes must not be negative (got \(maxBodyBytes))" }
        if connectionTimeoutSeconds < 1 { return "connectionTimeoutSeconds must be at least 1 (got \(connectionTimeoutSeconds))" }
        if !(1...1024).contains(threadCount) { return "threadCount must be in 1...1024 (got \(threadCount))" }
        if !(1...1_000_000).contains(maxConnections) { return "maxConnections must be in 1...1000000 (got \(maxConnections))" }
        if !(0...1_000_000).contains(maxConnectionsPerAddress) { return "maxConnectionsPerAddress must be in 0...1000000 (got \(maxConnectionsPerAddress))" }
        if !(1_024...(1 << 20)).contains(maxHeaderBytes) { return "maxHeaderBytes must be in 1024...1048576 (got \(maxHeaderBytes))" }
        if headerTimeoutSeconds < 1 { return "headerTimeoutSeconds must be at least 1 (got \(headerTimeoutSeconds))" }
        if bodyTimeoutSeconds < 1 { return "bodyTimeoutSeconds must be at least 1 (got \(bodyTimeoutSeconds))" }
        if minimumBodyBytesPerSecond < 0 { return "minimumBodyBytesPerSecond must not be negative (got \(minimumBodyBytesPerSecond))" }
        if bodyRateGracePeriod < .zero { return "bodyRateGracePeriod must not be negative" }
        if refusalSummaryInterval <= .zero { return "refusalSummaryInterval must be positive" }
        if shutdownGracePeriod < .zero { return "shutdownGracePeriod must not be negative" }
        return nil
    }
}
