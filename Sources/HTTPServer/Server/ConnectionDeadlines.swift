/// The deadlines a connection must meet, and which ones have passed: a pure book, kept by
/// `ConnectionGuard`, with time passed in.
///
/// libmicrohttpd's own timeout is an idle one: a client that trickles one header line every
/// few seconds never reaches it and holds its connection forever (slowloris). So a request's
/// headers must be complete within `headerTimeout` of the connection opening (or of the
/// previous response on it), and its body within `bodyTimeout` of its headers. While a
/// handler runs, or a response is written, no deadline applies (the idle timeout does).
///
/// A body must also keep a minimum average rate: from `rateGracePeriod` after its headers on,
/// the bytes received divided by the time since the headers must be at least
/// `minimumBodyRate` bytes a second, so a client trickling a large body is cut long before
/// the body deadline.
struct ConnectionDeadlines<Instant: InstantProtocol> where Instant.Duration == Duration {
    /// What a connection is waiting for.
    enum Stage: Equatable, Sendable {
        case headers, body
    }

    /// Why a connection is cut.
    enum Lateness: Equatable, Sendable {
        /// Its headers missed their deadline.
        case headers
        /// Its body missed its deadline.
        case body
        /// Its body arrives slower than the minimum rate.
        case slowBody
    }

    struct Entry: Equatable {
        var descriptor: Int32
        var stage: Stage?
        var deadline: Instant?
        /// The current request's id, once its headers are in.
        var requestID: String?
        /// When the current body became due, and how much of it has arrived.
        var bodySince: Instant?
        var bodyBytes = 0
    }

    /// A late connection: its socket, why, and its request's id (for a body's `408`).
    struct Late: Equatable {
        var descriptor: Int32
        var lateness: Lateness
        var requestID: String?
    }

    let headerTimeout: Duration
    let bodyTimeout: Duration
    /// Bytes a second a body must average; `0`: no minimum.
    let minimumBodyRate: Int
    /// How long after its headers a body's rate starts to count.
    let rateGracePeriod: Duration
    private(set) var entries: [Int: Entry] = [:]

    init(headerTimeout: Duration, bodyTimeout: Duration, minimumBodyRate: Int = 0, rateGracePeriod: Duration = .seconds(5)) {
        self.headerTimeout = headerTimeout
        self.bodyTimeout = bodyTimeout
        self.minimumBodyRate = minimumBodyRate
        self.rateGracePeriod = rateGracePeriod
    }

    /// A connection was accepted: its first request's headers are due.
    mutating func opened(_ id: Int, descriptor: Int32, now: Instant) {
        entries[id] = Entry(descriptor: descriptor, stage: .headers, deadline: now.advanced(by: headerTimeout))
    }

    /// A request's headers are complete: its body is due.
    mutating func headersReceived(_ id: Int, requestID: String? = nil, now: Instant) {
        entries[id]?.stage = .body
        entries[id]?.deadline = now.advanced(by: bodyTimeout)
        entries[id]?.requestID = requestID
        entries[id]?.bodySince = now
        entries[id]?.bodyBytes = 0
    }

    /// `bytes` more of the current body arrived.
    mutating func bodyProgress(_ id: Int, bytes: Int) {
        entries[id]?.bodyBytes += bytes
    }

    /// A request is complete and in the handler's hands: nothing is due from the client.
    mutating func bodyReceived(_ id: Int) {
        entries[id]?.stage = nil
        entries[id]?.deadline = nil
        entries[id]?.bodySince = nil
    }

    /// A response went out; the connection stays open for the next request, whose headers
    /// are due from now.
    mutating func requestFinished(_ id: Int, now: Instant) {
        entries[id]?.stage = .headers
        entries[id]?.deadline = now.advanced(by: headerTimeout)
        entries[id]?.requestID = nil
        entries[id]?.bodySince = nil
    }

    /// The connection is gone.
    mutating func closed(_ id: Int) {
        entries[id] = nil
    }

    /// The connections late at `now` (a deadline passed, or a body below the minimum rate),
    /// with what they were late with; each is reported once (its deadline is cleared).
    mutating func expire(now: Instant) -> [Late] {
        var late: [Late] = []
        for (id, entry) in entries {
            guard let deadline = entry.deadline, let stage = entry.stage else { continue }
            let lateness: Lateness
            if deadline <= now {
                lateness = stage == .headers ? .headers : .body
            } else if stage == .body, isBelowMinimumRate(entry, now: now) {
                lateness = .slowBody
            } else {
                continue
            }
            late.append(Late(descriptor: entry.descriptor, lateness: lateness, requestID: entry.requestID))
            entries[id]?.deadline = nil
        }
        return late
    }

    /// Whether `entry`'s body, past its grace period, averages less than the minimum rate.
    private func isBelowMinimumRate(_ entry: Entry, now: Instant) -> Bool {
        guard minimumBodyRate > 0, let since = entry.bodySince else { return false }
        let elapsed = since.duration(to: now)
        guard elapsed >= rateGracePeriod else { return false }
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        return Double(entry.bodyBytes) < Double(minimumBodyRate) * seconds
    }
}
