/// The deadlines a connection must meet, and which ones have passed: a pure book, kept by
/// `ConnectionGuard`, with time passed in.
///
/// libmicrohttpd's own timeout is an idle one: a client that trickles one header line every
/// few seconds never reaches it and holds its connection forever (slowloris). So a request's
/// headers must be complete within `headerTimeout` of the connection opening (or of the
/// previous response on it), and its body within `bodyTimeout` of its headers. While a
/// handler runs, or a response is written, no deadline applies (the idle timeout does).
struct ConnectionDeadlines<Instant: InstantProtocol> where Instant.Duration == Duration {
    /// What a connection is waiting for.
    enum Stage: Equatable, Sendable {
        case headers, body
    }

    struct Entry: Equatable {
        var descriptor: Int32
        var stage: Stage?
        var deadline: Instant?
    }

    let headerTimeout: Duration
    let bodyTimeout: Duration
    private(set) var entries: [Int: Entry] = [:]

    init(headerTimeout: Duration, bodyTimeout: Duration) {
        self.headerTimeout = headerTimeout
        self.bodyTimeout = bodyTimeout
    }

    /// A connection was accepted: its first request's headers are due.
    mutating func opened(_ id: Int, descriptor: Int32, now: Instant) {
        entries[id] = Entry(descriptor: descriptor, stage: .headers, deadline: now.advanced(by: headerTimeout))
    }

    /// A request's headers are complete: its body is due.
    mutating func headersReceived(_ id: Int, now: Instant) {
        entries[id]?.stage = .body
        entries[id]?.deadline = now.advanced(by: bodyTimeout)
    }

    /// A request is complete and in the handler's hands: nothing is due from the client.
    mutating func bodyReceived(_ id: Int) {
        entries[id]?.stage = nil
        entries[id]?.deadline = nil
    }

    /// A response went out; the connection stays open for the next request, whose headers
    /// are due from now.
    mutating func requestFinished(_ id: Int, now: Instant) {
        entries[id]?.stage = .headers
        entries[id]?.deadline = now.advanced(by: headerTimeout)
    }

    /// The connection is gone.
    mutating func closed(_ id: Int) {
        entries[id] = nil
    }

    /// The connections whose deadline has passed at `now`, with what they were late with;
    /// each is reported once (its deadline is cleared).
    mutating func expire(now: Instant) -> [(descriptor: Int32, stage: Stage)] {
        var late: [(descriptor: Int32, stage: Stage)] = []
        for (id, entry) in entries {
            guard let deadline = entry.deadline, let stage = entry.stage, deadline <= now else { continue }
            late.append((entry.descriptor, stage))
            entries[id]?.deadline = nil
        }
        return late
    }
}
