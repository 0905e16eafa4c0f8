internal import CMicroHTTPD
import Foundation
import Lifecycle
import ScorecastLogging
import Synchronization
internal import CThreadName

/// An HTTP/1.1 server on libmicrohttpd (internal thread pool, epoll), run as a `Service`.
///
/// ```swift
/// var router = Router()
/// router.get("/healthz") { _ in .text("ok") }
/// let server = HTTPServer(configuration: .init(port: 0), router: router, logger: logger)
/// try server.start()                    // binds now: `server.port` is known
/// try await server.run(until: shutdown) // serves until `shutdown` is triggered
/// ```
///
/// A handler starts on the libmicrohttpd thread that read its request and runs there until
/// its first suspension (`await` on real work); a handler that never suspends is answered
/// without any thread hop, one that does continues on Swift's pool while its connection is
/// suspended. So handlers must not block (no `sleep`, no blocking C call outside a thread of
/// its own): that would stall every connection served by that thread.
/// Every request gets an `X-Request-ID` and, when `accessLog` is on, one `info` log line.
/// Errors a handler throws become `application/problem+json` responses: a `Problem` as it says,
/// anything else a `500` that reveals nothing (the error is logged with the request id).
///
/// Shutdown (the signal, or cancelling the task): stop accepting connections, let requests
/// already received finish within `shutdownGracePeriod` (their responses close the
/// connection), answer those still running `503`, then stop libmicrohttpd.
public final class HTTPServer: Service {
    /// `http`, for logs.
    public let name = "http"
    /// The settings the server was created with.
    public let configuration: HTTPServerConfiguration

    private let core: ServerCore
    private let state = Mutex<State>(.idle)

    /// A started libmicrohttpd daemon.
    ///
    /// `@unchecked Sendable`: the pointer is only passed to `MHD_quiesce_daemon` and
    /// `MHD_stop_daemon`, called once each by whoever takes it out of `state` under its lock.
    private struct Daemon: @unchecked Sendable {
        let pointer: OpaquePointer
        /// The retained `ServerCore` given to libmicrohttpd as callback context; released
        /// after `MHD_stop_daemon`, once no callback can run.
        let context: Unmanaged<ServerCore>
    }

    private enum State {
        case idle
        case running(Daemon, port: Int)
        case stopping(port: Int)
        case stopped(port: Int)
    }

    /// Creates a server; nothing is bound until `start()` (or `run(until:)`).
    public init(configuration: HTTPServerConfiguration = HTTPServerConfiguration(), router: Router, logger: Logger) {
        self.configuration = configuration
        self.core = ServerCore(router: router, configuration: configuration, logger: logger)
    }

    deinit {
        // A server started but never run to its end: stop it hard rather than leave threads
        // calling into freed memory.
        if case .running(let daemon, _) = state.withLock({ $0 }) {
            for reply in core.inFlight.takeAllPending() {
                // The 503 first: the first answer wins, and a cancelled handler answers 500.
                reply.complete(with: Problem.serviceUnavailable("the server is shutting down").response(requestID: reply.requestID))
                reply.cancelTask()
            }
            MHD_stop_daemon(daemon.pointer)
            core.connectionGuard.stop()
            daemon.context.release()
        }
    }

    /// The bound port: the configured one, or the one the system picked for port `0`. `0`
    /// before `start()`.
    public var port: Int {
        state.withLock { state in
            switch state {
            case .idle: 0
            case .running(_, let port), .stopping(let port), .stopped(let port): port
            }
        }
    }

    /// Requests received and not yet completed (for tests and metrics).
    public var inFlightRequests: Int { core.inFlight.count }

    /// Binds and starts serving on libmicrohttpd's threads. Throws `HTTPServerError` when the
    /// configuration is invalid, the host is not a numeric address, or binding fails (e.g.
    /// the port is taken), or when the server was already started.
    public func start() throws {
        try state.withLock { state in
            guard case .idle = state else { throw HTTPServerError(.alreadyStarted, "the server was already started") }
            let (daemon, port) = try launch()
            state = .running(daemon, port: port)
            core.logger.info("http server listening", ["host": configuration.host, "port": String(port), "threads": String(configuration.threadCount)])
        }
    }

    /// Serves until `shutdown` is triggered (or the task is cancelled), then stops gracefully
    /// and returns. Starts the server first if `start()` was not called.
    public func run(until shutdown: ShutdownSignal) async throws {
        switch state.withLock({ $0 }) {
        case .idle: try start()
        case .running: break
        case .stopping, .stopped: throw HTTPServerError(.alreadyStarted, "the server has stopped; create a new one")
        }
        await withTaskCancellationHandler {
            await shutdown.wait()
        } onCancel: {
            // Cancellation means "stop now": the grace period below is skipped too.
            shutdown.trigger()
        }
        await stop()
    }

    /// Stops gracefully (see the type's documentation); returns once libmicrohttpd is stopped.
    /// Does nothing if the server is not running.
    private func stop() async {
        let taken = state.withLock { state -> Daemon? in
            guard case .running(let daemon, let port) = state else { return nil }
            state = .stopping(port: port)
            return daemon
        }
        guard let daemon = taken else { return }
        core.draining.store(true, ordering: .relaxed)
        // No new connections from here on; the listening socket is ours to close.
        let listenSocket = MHD_quiesce_daemon(daemon.pointer)
        core.logger.info("http server draining", ["in_flight": String(core.inFlight.count)])
        if !(await core.inFlight.waitUntilIdle(timeout: configuration.shutdownGracePeriod)) {
            let owed = core.inFlight.takeAllPending()
            core.logger.warning("http server stopping with requests still running; answering 503", ["requests": String(owed.count)])
            for reply in owed {
                // The 503 first: the first answer wins, and a handler cancelled first raced it
                // with its own 500 (CancellationError), which a loaded machine let win.
                reply.complete(with: Problem.serviceUnavailable("the server is shutting down").response(requestID: reply.requestID))
                reply.cancelTask()
            }
            // Give libmicrohttpd a moment to write those answers.
            _ = await core.inFlight.waitUntilIdle(timeout: .seconds(1))
        }
        // MHD_stop_daemon joins libmicrohttpd's threads: block a thread of our own, not the pool.
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let stopper = Thread {
                _ = scorecast_name_this_thread("http-stop")  // for top -H, ps -L and perf
                MHD_stop_daemon(daemon.pointer)
                continuation.resume()
            }
            stopper.start()
        }
        if listenSocket >= 0 { close(listenSocket) }
        core.connectionGuard.stop()
        daemon.context.release()
        state.withLock { state in
            if case .stopping(let port) = state { state = .stopped(port: port) }
        }
        core.logger.info("http server stopped")
    }

    /// Starts libmicrohttpd; returns the daemon and the bound port.
    private func launch() throws -> (Daemon, Int) {
        if let problem = configuration.validationError() {
            throw HTTPServerError(.invalidConfiguration, problem)
        }
        guard var address = SocketAddress.make(host: configuration.host, port: configuration.port) else {
            throw HTTPServerError(.invalidHost, "host '\(configuration.host)' is not a numeric IPv4 or IPv6 address")
        }
        var flags = MHD_USE_INTERNAL_POLLING_THREAD.rawValue | MHD_USE_EPOLL.rawValue
            | MHD_ALLOW_SUSPEND_RESUME.rawValue | MHD_USE_ERROR_LOG.rawValue
        if Int32(address.ss_family) == AF_INET6 { flags |= MHD_USE_IPv6.rawValue }
        let context = Unmanaged.passRetained(core)
        let opaque = context.toOpaque()
        core.lastDaemonMessage.withLock { $0 = nil }
        let started = withUnsafePointer(to: &address) { storage in
            storage.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                CMicroHTTPD_start_daemon(
                    UInt32(flags),
                    socketAddress,
                    UInt32(configuration.threadCount),
                    UInt32(configuration.connectionTimeoutSeconds),
                    UInt32(configuration.maxConnections),
                    UInt32(configuration.maxConnectionsPerAddress),
                    configuration.connectionMemoryBytes,
                    { cls, connection, _, method, _, uploadData, uploadSize, conCls in
                        guard let cls, let connection, let uploadSize, let slot = conCls?.pointee else { return .NO }
                        let core = Unmanaged<ServerCore>.fromOpaque(cls).takeUnretainedValue()
                        let context = Unmanaged<RequestContext>.fromOpaque(slot).takeUnretainedValue()
                        return core.handle(connection: connection, method: method, uploadData: uploadData, uploadSize: uploadSize, context: context)
                    },
                    opaque,
                    { cls, uri, _ in
                        guard let cls else { return nil }
                        return Unmanaged<ServerCore>.fromOpaque(cls).takeUnretainedValue().requestStarted(uri: uri)
                    },
                    opaque,
                    { cls, connection, conCls, termination in
                        guard let cls, let conCls, let slot = conCls.pointee else { return }
                        conCls.pointee = nil
                        let context = Unmanaged<RequestContext>.fromOpaque(slot).takeRetainedValue()
                        Unmanaged<ServerCore>.fromOpaque(cls).takeUnretainedValue()
                            .requestCompleted(context, connection: connection, termination: termination)
                    },
                    opaque,
                    { cls, connection, socketContext, notice in
                        guard let cls, let connection, let socketContext else { return }
                        let core = Unmanaged<ServerCore>.fromOpaque(cls).takeUnretainedValue()
                        // The guard's id for the connection rides in its socket context as a
                        // plain integer: nothing to retain or release.
                        switch notice {
                        case .CONNECTION_NOTIFY_STARTED:
                            let id = core.connectionGuard.opened(descriptor: CMicroHTTPD_connection_socket(connection))
                            socketContext.pointee = UnsafeMutableRawPointer(bitPattern: id)
                        case .CONNECTION_NOTIFY_CLOSED:
                            if let id = socketContext.pointee.map({ Int(bitPattern: $0) }) { core.connectionGuard.closed(id) }
                            socketContext.pointee = nil
                        default:
                            break
                        }
                    },
                    opaque,
                    { cls, format, arguments in
                        guard let cls, let format, let arguments else { return }
                        var buffer = [CChar](repeating: 0, count: 512)
                        _ = vsnprintf(&buffer, buffer.count, format, arguments)
                        let message = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
                        Unmanaged<ServerCore>.fromOpaque(cls).takeUnretainedValue()
                            .daemonMessage(message.trimmingCharacters(in: .whitespacesAndNewlines))
                    },
                    opaque)
            }
        }
        guard let pointer = started else {
            context.release()
            let reason = core.lastDaemonMessage.withLock { $0 } ?? "libmicrohttpd gave no reason"
            throw HTTPServerError(.startFailed, "could not listen on \(configuration.host):\(configuration.port) (\(reason))")
        }
        core.connectionGuard.start()
        let port = Int(CMicroHTTPD_bound_port(pointer))
        return (Daemon(pointer: pointer, context: context), port == 0 ? configuration.port : port)
    }
}
