import Foundation
import Lifecycle
import ScorecastLogging
import Synchronization
internal import CThreadName

/// An HTTP/2-over-TLS server on one port, with its own event-loop thread.
///
/// `start()` binds and starts the thread; `stop()` closes every connection and ends the thread.
/// Requests are handed to `handler` on the loop thread.
final class H2Server: EventLoopHandler, @unchecked Sendable {
    // @unchecked Sendable: `connections`, `listenFD` and the id counter are only touched on the
    // loop thread (or before it starts); other threads use `post`-based methods and immutable lets.

    let name: String
    let handler: any H2Handler
    let logger: Logger
    let loop: EventLoop
    let callbacks: H2Callbacks
    private let tls: TLSContext
    private let host: String
    private let requestedPort: Int
    private var listenFD: Int32 = -1
    private var connections: [UInt64: H2Connection] = [:]
    private var nextConnectionID: UInt64 = 1
    private let finished = ShutdownSignal()
    private let started = Latch()
    private let threadStarted = Latch()

    /// A server for `host:port` (port 0 picks a free one) answering with `handler`.
    init(name: String, host: String, port: Int, tls: TLSContext, handler: any H2Handler, logger: Logger) throws(SimulatorError) {
        self.name = name
        self.host = host
        self.requestedPort = port
        self.tls = tls
        self.handler = handler
        self.logger = logger
        self.loop = try EventLoop()
        self.callbacks = try H2Callbacks()
    }

    /// Binds the port and starts the loop thread; returns the port actually bound.
    func start() throws(SimulatorError) -> Int {
        guard started.claim() else { throw .state("the \(name) server was already started") }
        let (fd, port) = try ListeningSocket.open(host: host, port: requestedPort)
        listenFD = fd
        guard loop.register(fd: fd, events: Epoll.input, handler: self) else {
            Foundation.close(fd)
            throw .system("epoll_ctl", errno)
        }
        let threadName = "sim-\(name)"  // within the kernel's 15 bytes
        let thread = Thread { [self] in
            _ = scorecast_name_this_thread(threadName)  // for top -H, ps -L and perf
            loop.run { [self] in
                for connection in Array(connections.values) { connection.close() }
                loop.unregister(fd: listenFD)
                Foundation.close(listenFD)
            }
            finished.trigger()
        }
        _ = threadStarted.claim()
        thread.start()
        logger.debug("listening", ["server": name, "port": "\(port)"])
        return port
    }

    /// Closes every connection and the listening socket, then waits for the thread to end.
    func stop() async {
        guard threadStarted.isClaimed else { return }
        loop.stop()
        await finished.wait()
    }

    /// Asks the loop thread to close everything and end, without waiting for it.
    func stopDetached() {
        guard threadStarted.isClaimed else { return }
        loop.stop()
    }

    /// Has every open connection ask the handler for its stream limit again and advertise it
    /// if it changed (new connections ask when they start).
    func refreshStreamLimits() {
        loop.post { [self] in
            for connection in connections.values {
                connection.refreshStreamLimit()
                connection.flush()
            }
        }
    }

    /// Accepts every pending connection (the listening socket is non-blocking).
    func handle(events: UInt32) {
        while true {
            let fd = accept(listenFD, nil, nil)
            if fd < 0 {
                if errno == EINTR { continue }
                if errno != EAGAIN && errno != EWOULDBLOCK {
                    logger.warning("accept failed", ["server": name, "errno": "\(errno)"])
                }
                return
            }
            // accept4 is not imported (it needs _GNU_SOURCE): set the flags afterwards.
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            var one: Int32 = 1
            _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
            guard let ssl = tls.makeSSL(fd: fd) else {
                Foundation.close(fd)
                continue
            }
            let id = nextConnectionID
            nextConnectionID += 1
            let connection = H2Connection(id: id, fd: fd, ssl: ssl, server: self)
            guard loop.register(fd: fd, events: Epoll.input, handler: connection) else {
                connection.close()
                continue
            }
            connections[id] = connection
        }
    }

    /// Answers stream `streamID` of connection `connectionID` late (a held answer), if that
    /// connection is still open. Loop thread only.
    func respondLate(_ response: H2Response, streamID: Int32, connectionID: UInt64) {
        connections[connectionID]?.respondLate(response, streamID: streamID)
    }

    /// Forgets a closed connection.
    func connectionClosed(_ id: UInt64) {
        connections[id] = nil
    }
}

/// A one-time flag settable from any thread.
final class Latch: Sendable {
    private let flag = Mutex(false)

    /// Sets the flag; `true` only for the first caller.
    func claim() -> Bool { flag.withLock { value in defer { value = true }; return !value } }

    /// Whether `claim()` was called.
    var isClaimed: Bool { flag.withLock { $0 } }
}
