import Foundation
import ScorecastLogging
import Synchronization

/// One `LISTEN` subscription on a connection of its own, served by a dedicated thread that
/// waits on the socket with `poll()` and forwards notifications to a stream. When the
/// connection drops it reconnects (backing off up to two seconds) and listens again.
/// Notifications sent while it was not listening are lost; the stream says `.listening` each
/// time the subscription becomes active, so a consumer can look for what it missed.
final class PostgresListener: Sendable {
    typealias Continuation = AsyncThrowingStream<PostgresListenEvent, Error>.Continuation

    private struct Control {
        var stopRequested = false
        var finished = false
    }

    private let control = Mutex(Control())
    /// A self-pipe: `stop()` writes a byte so the thread's `poll()` wakes at once.
    private let wakeRead: Int32
    private let wakeWrite: Int32

    /// Creates the listener and starts its thread; fails only if a pipe cannot be made.
    init(
        channel: String,
        configuration: PostgresConfiguration,
        logger: Logger,
        continuation: Continuation,
        onFinish: @escaping @Sendable () -> Void
    ) throws(PostgresError) {
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else {
            throw PostgresError(.connectionFailed, "could not create a pipe for the listener: \(String(cString: strerror(errno)))")
        }
        _ = fcntl(fds[0], F_SETFD, FD_CLOEXEC)
        _ = fcntl(fds[1], F_SETFD, FD_CLOEXEC)
        wakeRead = fds[0]
        wakeWrite = fds[1]
        let thread = Thread { [self] in
            run(channel: channel, configuration: configuration, logger: logger, continuation: continuation)
            control.withLock { control in
                control.finished = true
                close(wakeWrite)
            }
            close(wakeRead)
            onFinish()
        }
        thread.name = "postgres-listen"
        thread.start()
    }

    /// Stops listening: the thread closes its connection and finishes the stream.
    func stop() {
        control.withLock { control in
            guard !control.finished, !control.stopRequested else { return }
            control.stopRequested = true
            var byte: UInt8 = 1
            _ = write(wakeWrite, &byte, 1)
        }
    }

    private var stopRequested: Bool { control.withLock { $0.stopRequested } }

    private func run(channel: String, configuration: PostgresConfiguration, logger: Logger, continuation: Continuation) {
        let logger = logger.with(["channel": channel])
        let repeats = RepeatLog(logger: logger)
        var connection: LibPQConnection?
        var backoff: Duration = .milliseconds(50)
        var connectedBefore = false
        while !stopRequested {
            guard let current = connection else {
                do throws(PostgresError) {
                    let opened = try LibPQConnection(configuration: configuration, logger: logger)
                    try opened.listen(channel)
                    connection = opened
                    backoff = .milliseconds(50)
                    if connectedBefore { logger.notice("listening again after reconnecting; notifications sent meanwhile were lost") }
                    connectedBefore = true
                    continuation.yield(.listening)
                } catch where error.code == .connectionFailed || error.code == .connectionClosed {
                    repeats.warning("listen connection unavailable; retrying", ["error": error.message, "in": "\(backoff)"])
                    if waitForWakeup(socket: nil, timeout: backoff) { break }
                    backoff = min(backoff * 2, .seconds(2))
                } catch {
                    continuation.finish(throwing: error)
                    return
                }
                continue
            }
            if waitForWakeup(socket: current.socket, timeout: nil) { break }
            let alive = current.consumeInput()
            for notification in current.drainNotifications() { continuation.yield(.notification(notification)) }
            if !alive {
                logger.warning("listen connection lost; reconnecting")
                connection = nil
            }
        }
        connection = nil
        continuation.finish()
    }

    /// Waits until the socket is readable (or errors), the timeout passes, or `stop()` writes
    /// to the pipe; returns `true` for the latter.
    private func waitForWakeup(socket: Int32?, timeout: Duration?) -> Bool {
        var descriptors = [pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0)]
        if let socket { descriptors.append(pollfd(fd: socket, events: Int16(POLLIN), revents: 0)) }
        let milliseconds = timeout.map { Int32($0.components.seconds * 1000 + $0.components.attoseconds / 1_000_000_000_000_000) } ?? -1
        while true {
            let ready = poll(&descriptors, nfds_t(descriptors.count), milliseconds)
            if ready < 0 && errno == EINTR { continue }
            return descriptors[0].revents != 0
        }
    }
}
