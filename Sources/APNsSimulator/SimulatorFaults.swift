/// Misbehaviour to inject into the APNs ports (send and channel management), set at start or
/// changed at run time. All off by default.
public struct SimulatorFaults: Sendable, Equatable, Codable {
    /// Answer this many next requests with `failStatus` (counts down as it fires).
    public var failNext: Int
    /// Answer this percentage (0–100) of requests with `failStatus`, at random.
    public var failPercent: Double
    /// The status of injected failures: 500 (`InternalServerError`) or 503 (`ServiceUnavailable`).
    public var failStatus: Int
    /// Send GOAWAY on every connection once it has opened this many streams; streams above the
    /// last one are never processed.
    public var goAwayAfterStreams: Int?
    /// Reset (RST_STREAM, INTERNAL_ERROR) this many next streams instead of answering.
    public var resetNext: Int
    /// Reset this percentage (0–100) of streams, at random.
    public var resetPercent: Double
    /// Delay every answer by this many milliseconds.
    public var latencyMilliseconds: Int
    /// Accept requests and never answer them.
    public var blackHole: Bool
    /// Hold the answers to broadcasts (`/4/broadcasts/…`): each is judged and logged on arrival
    /// but answered only when this is cleared, `releaseHeldAnswers()` is called, or the
    /// simulator shuts down; never by a timer. Held answers get no `latencyMilliseconds`.
    /// Other requests, and other streams of the same connection, are answered meanwhile.
    public var holdAnswers: Bool
    /// The SETTINGS_MAX_CONCURRENT_STREAMS to advertise instead of the configured one
    /// (applied to open connections too).
    public var maxConcurrentStreams: Int?

    /// Creates a fault set; every argument defaults to "off".
    public init(
        failNext: Int = 0,
        failPercent: Double = 0,
        failStatus: Int = 503,
        goAwayAfterStreams: Int? = nil,
        resetNext: Int = 0,
        resetPercent: Double = 0,
        latencyMilliseconds: Int = 0,
        blackHole: Bool = false,
        holdAnswers: Bool = false,
        maxConcurrentStreams: Int? = nil
    ) {
        self.failNext = failNext
        self.failPercent = failPercent
        self.failStatus = failStatus
        self.goAwayAfterStreams = goAwayAfterStreams
        self.resetNext = resetNext
        self.resetPercent = resetPercent
        self.latencyMilliseconds = latencyMilliseconds
        self.blackHole = blackHole
        self.holdAnswers = holdAnswers
        self.maxConcurrentStreams = maxConcurrentStreams
    }

    /// No faults.
    public static let none = SimulatorFaults()

    /// Checks ranges; the error names the offending field.
    public func validate() throws(SimulatorError) {
        guard failNext >= 0 else { throw .invalidConfiguration("failNext must be ≥ 0, got \(failNext)") }
        guard (0...100).contains(failPercent) else { throw .invalidConfiguration("failPercent must be 0–100, got \(failPercent)") }
        guard failStatus == 500 || failStatus == 503 else { throw .invalidConfiguration("failStatus must be 500 or 503, got \(failStatus)") }
        if let goAwayAfterStreams, goAwayAfterStreams < 1 {
            throw .invalidConfiguration("goAwayAfterStreams must be ≥ 1, got \(goAwayAfterStreams)")
        }
        guard resetNext >= 0 else { throw .invalidConfiguration("resetNext must be ≥ 0, got \(resetNext)") }
        guard (0...100).contains(resetPercent) else { throw .invalidConfiguration("resetPercent must be 0–100, got \(resetPercent)") }
        guard (0...600_000).contains(latencyMilliseconds) else {
            throw .invalidConfiguration("latencyMilliseconds must be 0–600000, got \(latencyMilliseconds)")
        }
        if let maxConcurrentStreams, !(1...Int(UInt32.max)).contains(maxConcurrentStreams) {
            throw .invalidConfiguration("maxConcurrentStreams must be ≥ 1, got \(maxConcurrentStreams)")
        }
    }
}
