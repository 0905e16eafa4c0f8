import Foundation
import Logging
import Synchronization

/// Enforces the header and body deadlines (`ConnectionDeadlines`) on live connections, and
/// writes one summary line per interval about connections refused at the caps or cut at a
/// deadline — never one line per connection, which would let an attacker flood the log.
///
/// A late connection is cut with `shutdown(2)` from the guard's own thread; libmicrohttpd then
/// sees the end of the stream and closes it the usual way. The book's lock is held around the
/// call, and libmicrohttpd reports a connection closed (taking the same lock) before it closes
/// the descriptor, so the descriptor shut down is always the late connection's own.
final class ConnectionGuard: Sendable {
    private struct State {
        var book: ConnectionDeadlines<ContinuousClock.Instant>
        var nextID = 1
        var refusedAtCaps = 0
        var cutAtHeaderDeadline = 0
        var cutAtBodyDeadline = 0
        var lastSummary: ContinuousClock.Instant
    }

    private let state: Mutex<State>
    private let stopped = Atomic<Bool>(false)
    private let summaryInterval: Duration
    private let logger: Logger
    private let clock = ContinuousClock()

    init(headerTimeout: Duration, bodyTimeout: Duration, summaryInterval: Duration, logger: Logger) {
        self.summaryInterval = summaryInterval
        self.logger = logger
        self.state = Mutex(State(book: ConnectionDeadlines(headerTimeout: headerTimeout, bodyTimeout: bodyTimeout), lastSummary: ContinuousClock().now))
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

    func headersReceived(_ id: Int) {
        let now = clock.now
        state.withLock { $0.book.headersReceived(id, now: now) }
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

    // MARK: - The guard's thread

    /// Starts the thread that cuts late connections (every quarter second) and writes the
    /// summaries; it ends after `stop()`.
    func start() {
        let thread = Thread { [self] in
            while !stopped.load(ordering: .relaxed) {
                usleep(250_000)
                sweep()
            }
        }
        thread.name = "http-guard"
        thread.start()
    }

    func stop() {
        stopped.store(true, ordering: .relaxed)
    }

    private func sweep() {
        let now = clock.now
        let summary = state.withLock { state -> [String: String]? in
            for late in state.book.expire(now: now) {
                shutdown(late.descriptor, Int32(SHUT_RDWR))
                switch late.stage {
                case .headers: state.cutAtHeaderDeadline += 1
                case .body: state.cutAtBodyDeadline += 1
                }
            }
            guard now - state.lastSummary >= summaryInterval else { return nil }
            defer {
                state.lastSummary = now
                state.refusedAtCaps = 0
                state.cutAtHeaderDeadline = 0
                state.cutAtBodyDeadline = 0
            }
            guard state.refusedAtCaps + state.cutAtHeaderDeadline + state.cutAtBodyDeadline > 0 else { return nil }
            return [
                "refused_at_connection_caps": String(state.refusedAtCaps),
                "cut_at_header_deadline": String(state.cutAtHeaderDeadline),
                "cut_at_body_deadline": String(state.cutAtBodyDeadline),
                "seconds": String(summaryInterval.components.seconds),
            ]
        }
        if let summary {
            logger.warning("http connections refused or cut (slow or too many clients)", summary)
        }
    }
}
