import Foundation
import ScorecastLogging
import Synchronization
internal import CThreadName

/// Enforces the header and body deadlines (`ConnectionDeadlines`) on live connections, and
/// writes one summary line per interval about connections refused at the caps or cut at a
/// deadline — never one line per connection, which would let an attacker flood the log.
///
/// It also keeps the lingering close of connections answered before their body was read (a
/// `413` on the declared length, a `431`): libmicrohttpd would close them with unread data,
/// which makes the kernel send a reset that a client still writing sees instead of the
/// answer. The guard holds a duplicate of the socket, ends the sending side, and reads and
/// drops what the client still sends until it closes, for at most the body deadline and
/// `maximumLingerBytes`.
///
/// A connection late with its body (past the deadline, or below the minimum rate) is first
/// answered `408` with a problem+json body, written by the guard itself: libmicrohttpd cannot
/// queue an answer in the middle of a body, and while it reads a body it writes nothing, so
/// the two never interleave. A connection late with its headers gets no answer.
///
/// A late connection is cut with `shutdown(2)` from the guard's own thread; libmicrohttpd then
/// sees the end of the stream and closes it the usual way. The book's lock is held around the
/// call, and libmicrohttpd reports a connection closed (taking the same lock) before it closes
/// the descriptor, so the descriptor shut down is always the late connection's own.
final class ConnectionGuard: Sendable {
    private struct Lingering {
        var descriptor: Int32
        var until: ContinuousClock.Instant
        var bytes = 0
    }

    /// At most this many connections linger at once; more are closed at once.
    static let maximumLingering = 256
    /// A lingering connection is closed after reading this much.
    static let maximumLingerBytes = 64 << 20

    private struct State {
        var book: ConnectionDeadlines<ContinuousClock.Instant>
        var lingering: [Lingering] = []
        var nextID = 1
        var refusedAtCaps = 0
        var cutAtHeaderDeadline = 0
        var cutAtBodyDeadline = 0
        var cutBelowMinimumRate = 0
        var lastSummary: ContinuousClock.Instant
    }

    private let state: Mutex<State>
    private let stopped = Atomic<Bool>(false)
    private let summaryInterval: Duration
    private let lingerTime: Duration
    private let logger: Logger
    private let clock = ContinuousClock()

    init(
        headerTimeout: Duration, bodyTimeout: Duration, minimumBodyRate: Int, rateGracePeriod: Duration,
        summaryInterval: Duration, logger: Logger
    ) {
        self.summaryInterval = summaryInterval
        self.lingerTime = bodyTimeout
        self.logger = logger
        let book = ConnectionDeadlines<ContinuousClock.Instant>(
            headerTimeout: headerTimeout, bodyTimeout: bodyTimeout, minimumBodyRate: minimumBodyRate, rateGracePeriod: rateGracePeriod)
        self.state = Mutex(State(book: book, lastSummary: ContinuousClock().now))
    }

    // MARK: - Called from libmicrohttpd's threads

    /// A connection was accepted; returns its id (kept in its socket context).
    func opened(descriptor: Int32) -> Int {
        let now = clock.now
        return state.withLock { state in
            let id = state.nextID
            state.nextID += 1
            state.book.opened(id, descriptor: descriptor, now: now)
            return id
        }
    }

    func headersReceived(_ id: Int, requestID: String) {
        let now = clock.now
        state.withLock { $0.book.headersReceived(id, requestID: requestID, now: now) }
    }

    func bodyProgress(_ id: Int, bytes: Int) {
        state.withLock { $0.book.bodyProgress(id, bytes: bytes) }
    }

    func bodyReceived(_ id: Int) {
        state.withLock { $0.book.bodyReceived(id) }
    }

    func requestFinished(_ id: Int) {
        let now = clock.now
        state.withLock { $0.book.requestFinished(id, now: now) }
    }

    func closed(_ id: Int) {
        state.withLock { $0.book.closed(id) }
    }

    /// libmicrohttpd closed a new connection at the total or per-address cap.
    func refusedAtCap() {
        state.withLock { $0.refusedAtCaps += 1 }
    }

    /// The answer to a request whose body was not read has been sent on `descriptor`: keep a
    /// duplicate of it and drain it (see the type's documentation).
    func linger(descriptor: Int32) {
        guard descriptor >= 0 else { return }
        let copy = dup(descriptor)
        guard copy >= 0 else { return }
        // Everything queued (the answer) goes out, then the end of the stream.
        shutdown(copy, Int32(SHUT_WR))
        let until = clock.now.advanced(by: lingerTime)
        let kept = state.withLock { state in
            guard state.lingering.count < Self.maximumLingering else { return false }
            state.lingering.append(Lingering(descriptor: copy, until: until))
            return true
        }
        if !kept { close(copy) }
    }

    // MARK: - The guard's thread

    /// Starts the thread that cuts late connections (every quarter second) and writes the
    /// summaries; it ends after `stop()`.
    func start() {
        let thread = Thread { [self] in
            _ = scorecast_name_this_thread("http-guard")  // for top -H, ps -L and perf
            while !stopped.load(ordering: .relaxed) {
                drainLingering(waitingUpTo: 250)
                sweep()
            }
            state.withLock { state in
                state.lingering.forEach { close($0.descriptor) }
                state.lingering = []
            }
        }
        thread.start()
    }

    func stop() {
        stopped.store(true, ordering: .relaxed)
    }

    /// Waits up to `milliseconds` for lingering connections to have data, reads and drops
    /// it, and closes those that ended, overran or outstayed.
    private func drainLingering(waitingUpTo milliseconds: Int32) {
        // Only this thread removes entries, so the descriptors stay valid while it polls.
        let descriptors = state.withLock { $0.lingering.map(\.descriptor) }
        guard !descriptors.isEmpty else {
            usleep(useconds_t(milliseconds) * 1000)
            return
        }
        var polled = descriptors.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
        _ = poll(&polled, nfds_t(polled.count), milliseconds)
        var buffer = [UInt8](repeating: 0, count: 65536)
        var read: [Int32: (bytes: Int, ended: Bool)] = [:]
        for entry in polled where entry.revents != 0 {
            var total = 0
            var ended = false
            while total < Self.maximumLingerBytes {
                let count = recv(entry.fd, &buffer, buffer.count, Int32(MSG_DONTWAIT))
                if count > 0 {
                    total += count
                } else {
                    ended = count == 0 || (errno != EAGAIN && errno != EWOULDBLOCK)
                    break
                }
            }
            read[entry.fd] = (total, ended)
        }
        let now = clock.now
        let finished = state.withLock { state -> [Int32] in
            var finished: [Int32] = []
            state.lingering = state.lingering.compactMap { entry in
                var entry = entry
                let result = read[entry.descriptor]
                entry.bytes += result?.bytes ?? 0
                if result?.ended == true || entry.bytes >= Self.maximumLingerBytes || now >= entry.until {
                    finished.append(entry.descriptor)
                    return nil
                }
                return entry
            }
            return finished
        }
        finished.forEach { close($0) }
    }

    private func sweep() {
        let now = clock.now
        let summary = state.withLock { state -> [String: String]? in
            for late in state.book.expire(now: now) {
                switch late.lateness {
                case .headers: state.cutAtHeaderDeadline += 1
                case .body: state.cutAtBodyDeadline += 1
                case .slowBody: state.cutBelowMinimumRate += 1
                }
                if late.lateness != .headers {
                    // Best effort, never blocking: the answer fits the socket's empty send buffer.
                    let answer = Self.timeoutAnswer(requestID: late.requestID, slow: late.lateness == .slowBody)
                    _ = answer.withUnsafeBytes { send(late.descriptor, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT | MSG_NOSIGNAL)) }
                }
                shutdown(late.descriptor, Int32(SHUT_RDWR))
            }
            guard now - state.lastSummary >= summaryInterval else { return nil }
            defer {
                state.lastSummary = now
                state.refusedAtCaps = 0
                state.cutAtHeaderDeadline = 0
                state.cutAtBodyDeadline = 0
                state.cutBelowMinimumRate = 0
            }
            guard state.refusedAtCaps + state.cutAtHeaderDeadline + state.cutAtBodyDeadline + state.cutBelowMinimumRate > 0 else { return nil }
            return [
                "refused_at_connection_caps": String(state.refusedAtCaps),
                "cut_at_header_deadline": String(state.cutAtHeaderDeadline),
                "cut_at_body_deadline": String(state.cutAtBodyDeadline),
                "cut_below_minimum_body_rate": String(state.cutBelowMinimumRate),
                "seconds": String(summaryInterval.components.seconds),
            ]
        }
        if let summary {
            logger.warning("http connections refused or cut (slow or too many clients)", summary)
        }
    }

    /// The whole `408` answer, status line to body, as the guard writes it on the socket.
    static func timeoutAnswer(requestID: String?, slow: Bool) -> [UInt8] {
        let detail = slow
            ? "the request body arrived slower than the server's minimum rate; the connection is closed"
            : "the request body did not arrive in time; the connection is closed"
        let response = Problem(status: .requestTimeout, detail: detail).response(requestID: requestID)
        var head = "HTTP/1.1 408 \(HTTPStatus.requestTimeout.reasonPhrase)\r\n"
        for field in response.headers { head += "\(field.name): \(field.value)\r\n" }
        if let requestID { head += "X-Request-ID: \(requestID)\r\n" }
        head += "Content-Length: \(response.body.count)\r\nConnection: close\r\n\r\n"
        return Array(head.utf8) + response.body
    }
}
