internal import CNGHTTP2
import Foundation
import Logging

/// The transport's loop thread: one `epoll` loop that owns every connection, queue and stream.
/// Callers never touch it; they hand transfers over through the `LoopMailbox`, whose eventfd
/// wakes `epoll_wait` once per batch.
///
/// Each turn: wait for sockets, the mailbox or the next housekeeping instant; read and write
/// the sockets that are ready (nghttp2 reports answers through the connections); take the
/// mailbox; hand waiting requests to connections with free streams (`EndpointPool` decides
/// which, and when to open another); flush what was submitted (one gathered write per
/// connection per turn); and, when due, enforce deadlines, connect timeouts, PINGs and the
/// idle age limit.
///
/// Confined to its own thread (not `Sendable`): created and run by `H2ClientLoop.start`.
final class H2ClientLoop {
    let options: TransportOptions
    /// The loop's clock, read once after each wait: every decision of a turn uses it.
    private(set) var now: ContinuousClock.Instant

    private let mailbox: LoopMailbox
    private let logger: Logger
    private let epollFD: Int32
    private let resendPolicy: ResendPolicy
    private var endpoints: [APNsEndpoint: EndpointState] = [:]
    private var connections: [UInt64: H2ClientConnection] = [:]
    private var byFD: [Int32: H2ClientConnection] = [:]
    private var tlsContexts: [String: TLSClientContext] = [:]
    private var nextConnectionID: UInt64 = 0
    private var dispatchNeeded = false
    private var nextHousekeeping: ContinuousClock.Instant
    private var lastQueueSweep: ContinuousClock.Instant

    /// How often deadlines of requests on streams are checked while any are pending.
    private static let sweepInterval: Duration = .milliseconds(10)
    /// How often whole queues are checked for passed deadlines (their fronts every turn).
    private static let queueSweepInterval: Duration = .milliseconds(50)
    /// The longest wait when nothing is due (housekeeping recomputes its next instant).
    private static let maxWait: Duration = .seconds(1)

    /// One endpoint: its connections' numbers and the requests waiting for a stream.
    final class EndpointState {
        let endpoint: APNsEndpoint
        var pool: EndpointPool
        var queue = TransferQueue()

        init(endpoint: APNsEndpoint, pool: EndpointPool) {
            self.endpoint = endpoint
            self.pool = pool
        }
    }

    private init(mailbox: LoopMailbox, epollFD: Int32, options: TransportOptions, logger: Logger) {
        self.mailbox = mailbox
        self.epollFD = epollFD
        self.options = options
        self.logger = logger
        self.resendPolicy = ResendPolicy(maxConnectionRetries: options.maxConnectionRetries)
        let now = options.clock.now()
        self.now = now
        self.nextHousekeeping = now + Self.maxWait
        self.lastQueueSweep = now
    }

    /// Creates the mailbox and the epoll instance and starts the loop thread.
    static func start(options: TransportOptions, logger: Logger) throws(APNsClientError) -> LoopMailbox {
        guard H2ClientCallbacks.shared.table != nil else {
            throw APNsClientError(.transport, "nghttp2 could not allocate its callback table")
        }
        let mailbox = try LoopMailbox()
        let epollFD = epoll_create1(Int32(EPOLL_CLOEXEC))
        guard epollFD >= 0 else {
            throw APNsClientError(.transport, "epoll_create1 failed: \(TransportErrorMapping.describe(errno: errno))")
        }
        var event = epoll_event(events: Epoll.input, data: epoll_data_t(fd: mailbox.wakeFD))
        guard epoll_ctl(epollFD, EPOLL_CTL_ADD, mailbox.wakeFD, &event) == 0 else {
            let code = errno
            close(epollFD)
            throw APNsClientError(.transport, "epoll_ctl failed: \(TransportErrorMapping.describe(errno: code))")
        }
        let thread = Thread {
            H2ClientLoop(mailbox: mailbox, epollFD: epollFD, options: options, logger: logger).run()
        }
        thread.name = "apns-h2"
        thread.start()
        return mailbox
    }

    // MARK: - The loop

    private func run() {
        // A write to a socket the peer has reset raises SIGPIPE, which would end the process.
        // It is sent to the writing thread: blocked here, it stays pending and write(2) (inside
        // SSL_write) returns EPIPE, which the connection handles like any other failure.
        var pipe = sigset_t()
        sigemptyset(&pipe)
        sigaddset(&pipe, SIGPIPE)
        pthread_sigmask(SIG_BLOCK, &pipe, nil)
        logger.debug("APNs HTTP/2 loop started")
        let capacity = 64
        var events = [epoll_event](repeating: epoll_event(), count: capacity)
        var readsPending: [H2ClientConnection] = []
        while true {
            // No wait when buffered TLS bytes are left to read or requests wait for a dispatch
            // (a connection that closed while flushing put its requests back in the queue).
            let timeout = readsPending.isEmpty && !dispatchNeeded
                ? Self.milliseconds(until: nextHousekeeping, from: options.clock.now()) : 0
            let count = events.withUnsafeMutableBufferPointer { epoll_wait(epollFD, $0.baseAddress, Int32(capacity), timeout) }
            now = options.clock.now()
            var woken = false
            if count > 0 {
                for index in 0..<Int(count) {
                    let fd = events[index].data.fd
                    if fd == mailbox.wakeFD {
                        woken = true
                    } else if let connection = byFD[fd] {
                        connection.handle(events: events[index].events)
                    }
                }
            }
            for connection in readsPending where connection.readPending { connection.resumeReading() }
            if woken {
                let batch = mailbox.take()
                if batch.stopping {
                    shutDown(alsoFailing: batch.submissions)
                    logger.debug("APNs HTTP/2 loop stopped")
                    return
                }
                accept(batch)
            }
            if now >= nextHousekeeping { housekeeping() }
            if dispatchNeeded { dispatchAll() }
            readsPending.removeAll(keepingCapacity: true)
            for connection in connections.values {
                if connection.needsFlush { connection.flush() }
                if connection.readPending { readsPending.append(connection) }
            }
        }
    }

    private func accept(_ batch: LoopMailbox.Batch) {
        for resolution in batch.resolutions {
            guard let connection = connections[resolution.connectionID] else { continue }
            switch resolution.result {
            case .success(let addresses): connection.connect(to: addresses)
            case .failure(let error): connection.resolutionFailed(error.detail)
            }
        }
        for transfer in batch.submissions {
            if transfer.cancellation.isRaised {
                transfer.continuation.resume(throwing: TransportErrorMapping.cancelled(onStream: false))
                continue
            }
            state(for: transfer.request.endpoint).queue.append(transfer)
            dispatchNeeded = true
        }
        for id in batch.cancellations { cancel(id) }
        if dispatchNeeded { scheduleSweep() }
    }

    private func state(for endpoint: APNsEndpoint) -> EndpointState {
        if let state = endpoints[endpoint] { return state }
        let state = EndpointState(endpoint: endpoint, pool: EndpointPool(
            maxConnections: options.maxConnectionsPerHost, maxStreams: options.maxConcurrentStreams))
        endpoints[endpoint] = state
        return state
    }

    // MARK: - Dispatch

    private func dispatchAll() {
        dispatchNeeded = false
        for state in endpoints.values where !state.queue.isEmpty { dispatch(state) }
    }

    /// Hands queued requests to connections with free streams, opening one when the pool says so.
    private func dispatch(_ state: EndpointState) {
        while let transfer = state.queue.first {
            if transfer.cancellation.isRaised {
                _ = state.queue.popFirst()
                transfer.continuation.resume(throwing: TransportErrorMapping.cancelled(onStream: false))
                continue
            }
            if now >= transfer.deadline {
                _ = state.queue.popFirst()
                transfer.continuation.resume(throwing: TransportErrorMapping.deadlineWhileQueued())
                continue
            }
            switch state.pool.choose(now: now) {
            case .use(let id):
                _ = state.queue.popFirst()
                guard let connection = connections[id] else {
                    state.pool.closed(id)
                    state.queue.prepend(transfer)
                    continue
                }
                start(transfer, on: connection, state: state)
            case .open:
                open(state)
            case .wait:
                return
            }
        }
    }

    private func start(_ transfer: Transfer, on connection: H2ClientConnection, state: EndpointState) {
        let stream = H2ClientStream(transfer: transfer, startedAt: now, openedConnection: false)
        if let error = connection.submit(stream) {
            // The session takes no new stream (ids exhausted, out of memory): the next request
            // goes to a fresh connection, and this one ends when its streams have.
            logger.debug("APNs connection refused a new stream; retiring it", [
                "endpoint": state.endpoint.description, "connection": String(connection.id), "error": error.message])
            state.pool.draining(connection.id)
            connection.retire()
            failed(transfer, error, state: state)
            return
        }
        state.pool.streamStarted(connection.id)
    }

    private func open(_ state: EndpointState) {
        let endpoint = state.endpoint
        let tls: TLSClientContext
        do {
            tls = try tlsContext(for: endpoint)
        } catch {
            // No connection can be made with this trust source: everything waiting fails.
            while let transfer = state.queue.popFirst() { transfer.continuation.resume(throwing: error) }
            return
        }
        nextConnectionID += 1
        let id = nextConnectionID
        let connection = H2ClientConnection(id: id, endpointState: state, tls: tls, loop: self, now: now)
        connections[id] = connection
        state.pool.opening(id)
        logger.debug("opening an APNs connection", ["endpoint": endpoint.description, "connection": String(id)])
        if let addresses = AddressResolver.numeric(host: endpoint.host, port: endpoint.port) {
            connection.connect(to: addresses)
        } else {
            let mailbox = self.mailbox
            AddressResolver.resolveInBackground(host: endpoint.host, port: endpoint.port, connectionID: id) { mailbox.deliver($0) }
        }
        scheduleSweep()
    }

    private func tlsContext(for endpoint: APNsEndpoint) throws(APNsClientError) -> TLSClientContext {
        let key = endpoint.caFile ?? ""
        if let context = tlsContexts[key] { return context }
        let context = try TLSClientContext(caFile: endpoint.caFile, endpoint: endpoint)
        tlsContexts[key] = context
        return context
    }

    /// A request's attempt failed without an answer: queue it again (at the front) or fail it.
    private func failed(_ transfer: Transfer, _ error: APNsClientError, state: EndpointState) {
        let failures = transfer.attempts.add(1, ordering: .relaxed).newValue
        if resendPolicy.shouldResend(error, retrySafe: transfer.request.retrySafe, failures: failures,
                                     cancelled: transfer.cancellation.isRaised, now: now, deadline: transfer.deadline) {
            if logger.isEnabled(.debug) {
                logger.debug("sending a request again", [
                    "endpoint": state.endpoint.description, "error": error.code.rawValue,
                    "never_processed": String(error.neverProcessed), "failures": String(failures)])
            }
            state.queue.prepend(transfer)
            dispatchNeeded = true
            return
        }
        transfer.continuation.resume(throwing: error)
    }

    // MARK: - Reports from connections

    func connectionEstablished(_ connection: H2ClientConnection) {
        connection.endpointState.pool.established(connection.id)
        dispatchNeeded = true
    }

    func connectionSettingsChanged(_ connection: H2ClientConnection, peerLimit: Int) {
        connection.endpointState.pool.settingsReceived(connection.id, peerLimit: peerLimit)
        dispatchNeeded = true
    }

    func connectionGoingAway(_ connection: H2ClientConnection) {
        logger.debug("APNs connection received GOAWAY", ["endpoint": connection.endpoint.description,
                                                         "last_stream": String(connection.goAwayLastStreamID ?? 0)])
        connection.endpointState.pool.draining(connection.id)
        dispatchNeeded = true
    }

    /// Our PING was answered: the next one is due a full interval after this read.
    func pingAnswered(_ connection: H2ClientConnection) {
        let due = now + options.idlePingInterval
        if nextHousekeeping > due { nextHousekeeping = due }
    }

    func streamEnded(_ connection: H2ClientConnection, stream: H2ClientStream, transfer: Transfer?,
                     outcome: Result<HTTPResponse, APNsClientError>?, answered: Bool) {
        let state = connection.endpointState
        state.pool.streamEnded(connection.id, answered: answered)
        if !state.queue.isEmpty { dispatchNeeded = true }
        guard let transfer, let outcome else { return }
        switch outcome {
        case .success(let response):
            transfer.continuation.resume(returning: response)
        case .failure(let error):
            failed(transfer, error, state: state)
        }
    }

    /// An established connection ended; `failed` are the requests that were on it.
    func connectionClosed(_ connection: H2ClientConnection, failed: [(Transfer, APNsClientError)]) {
        forget(connection)
        logger.debug("APNs connection closed", ["endpoint": connection.endpoint.description,
                                                "connection": String(connection.id), "requests_on_it": String(failed.count)])
        let state = connection.endpointState
        state.pool.closed(connection.id)
        for (transfer, error) in failed { self.failed(transfer, error, state: state) }
        dispatchNeeded = true
    }

    /// A connection could not be opened. With no other connection serving the endpoint, every
    /// waiting request counts it as a failed attempt.
    func connectionFailed(_ connection: H2ClientConnection, error: APNsClientError) {
        forget(connection)
        logger.debug("APNs connection could not be opened", ["endpoint": connection.endpoint.description, "error": error.message])
        let state = connection.endpointState
        state.pool.openFailed(connection.id, now: now)
        if !state.pool.hasServingConnection {
            var waiting: [Transfer] = []
            while let transfer = state.queue.popFirst() { waiting.append(transfer) }
            for transfer in waiting.reversed() { failed(transfer, error, state: state) }
        }
        dispatchNeeded = true
    }

    private func forget(_ connection: H2ClientConnection) {
        connections[connection.id] = nil
    }

    // MARK: - epoll registration (for connections)

    func register(fd: Int32, events: UInt32, connection: H2ClientConnection) -> Bool {
        var event = epoll_event(events: events, data: epoll_data_t(fd: fd))
        guard epoll_ctl(epollFD, EPOLL_CTL_ADD, fd, &event) == 0 else { return false }
        byFD[fd] = connection
        return true
    }

    func modify(fd: Int32, events: UInt32) {
        var event = epoll_event(events: events, data: epoll_data_t(fd: fd))
        _ = epoll_ctl(epollFD, EPOLL_CTL_MOD, fd, &event)
    }

    func unregister(fd: Int32) {
        _ = epoll_ctl(epollFD, EPOLL_CTL_DEL, fd, nil)
        byFD[fd] = nil
    }

    // MARK: - Cancellation

    private func cancel(_ id: UInt64) {
        for state in endpoints.values {
            let removed = state.queue.removeAll { $0.id == id }
            for transfer in removed { transfer.continuation.resume(throwing: TransportErrorMapping.cancelled(onStream: false)) }
            if !removed.isEmpty { return }
        }
        for connection in connections.values {
            guard let stream = connection.stream(carrying: id), let transfer = stream.transfer else { continue }
            _ = connection.abandon(stream)
            transfer.continuation.resume(throwing: TransportErrorMapping.cancelled(onStream: true))
            return
        }
    }

    // MARK: - Housekeeping

    /// Makes the next housekeeping come within one sweep interval (requests are pending).
    private func scheduleSweep() {
        let soon = now + Self.sweepInterval
        if nextHousekeeping > soon { nextHousekeeping = soon }
    }

    /// Deadlines of queued and running requests, connect timeouts, PINGs, the idle age limit;
    /// then when to come back.
    private func housekeeping() {
        var next = now + Self.maxWait
        var pending = false
        let sweepQueues = now - lastQueueSweep >= Self.queueSweepInterval
        if sweepQueues { lastQueueSweep = now }
        for state in endpoints.values where !state.queue.isEmpty {
            pending = true
            dispatchNeeded = true
            if sweepQueues {
                let late = state.queue.removeAll { $0.deadline <= now || $0.cancellation.isRaised }
                for transfer in late {
                    transfer.continuation.resume(throwing: transfer.cancellation.isRaised
                        ? TransportErrorMapping.cancelled(onStream: false) : TransportErrorMapping.deadlineWhileQueued())
                }
            }
        }
        let pingInterval = options.idlePingInterval
        let pingTimeout = options.pingTimeout
        let idleLimit = Duration.seconds(options.idleConnectionMaxAgeSeconds)
        for connection in Array(connections.values) {
            switch connection.state {
            case .resolving, .connecting, .handshaking:
                pending = true
                let limit = connection.openedAt + options.connectTimeout
                if now >= limit {
                    connection.fail(TransportErrorMapping.connectTimedOut(connection.endpoint, after: options.connectTimeout))
                } else {
                    next = min(next, limit)
                }
            case .open:
                if connection.activeStreams > 0 {
                    pending = true
                    sweepStreams(of: connection)
                }
                if let sentAt = connection.pingSentAt {
                    if now - sentAt >= pingTimeout {
                        connection.close(reason: "no answer to PING within \(pingTimeout)")
                        continue
                    }
                    next = min(next, sentAt + pingTimeout)
                } else if now - connection.lastReadAt >= pingInterval {
                    connection.ping(now: now)
                    next = min(next, now + pingTimeout)
                } else {
                    next = min(next, connection.lastReadAt + pingInterval)
                }
                if connection.activeStreams == 0, let idleSince = connection.idleSince {
                    if now - idleSince >= idleLimit {
                        connection.endpointState.pool.draining(connection.id)
                        connection.closeGracefully(reason: "idle for \(idleLimit)")
                        continue
                    }
                    next = min(next, idleSince + idleLimit)
                }
            case .closed:
                break
            }
        }
        if pending { next = min(next, now + Self.sweepInterval) }
        nextHousekeeping = next
    }

    /// Fails requests on `connection` whose deadline passed or whose caller cancelled.
    private func sweepStreams(of connection: H2ClientConnection) {
        var ended: [(Transfer, APNsClientError)] = []
        connection.forEachPendingStream { stream in
            guard let transfer = stream.transfer else { return }
            if transfer.cancellation.isRaised {
                ended.append((transfer, TransportErrorMapping.cancelled(onStream: true)))
                _ = connection.abandon(stream)
            } else if now >= transfer.deadline {
                let sent = connection.abandon(stream)
                ended.append((transfer, TransportErrorMapping.deadlineOnStream(connection.endpoint, sent: sent)))
            }
        }
        for (transfer, error) in ended { transfer.continuation.resume(throwing: error) }
    }

    // MARK: - Shutdown

    private func shutDown(alsoFailing submissions: [Transfer]) {
        for connection in Array(connections.values) {
            for transfer in connection.abort() {
                transfer.continuation.resume(throwing: TransportErrorMapping.shutdown(onStream: true))
            }
        }
        connections.removeAll()
        for state in endpoints.values {
            while let transfer = state.queue.popFirst() {
                transfer.continuation.resume(throwing: TransportErrorMapping.shutdown(onStream: false))
            }
        }
        endpoints.removeAll()
        tlsContexts.removeAll()
        for transfer in submissions { transfer.continuation.resume(throwing: TransportErrorMapping.shutdown(onStream: false)) }
        close(epollFD)
        for transfer in mailbox.markStopped() {
            transfer.continuation.resume(throwing: TransportErrorMapping.shutdown(onStream: false))
        }
    }

    /// The `epoll_wait` timeout until `instant`: rounded up to whole milliseconds, at least 0.
    private static func milliseconds(until instant: ContinuousClock.Instant, from now: ContinuousClock.Instant) -> Int32 {
        guard instant > now else { return 0 }
        let (seconds, attoseconds) = (instant - now).components
        let millis = seconds * 1000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
        return Int32(min(millis, 60_000))
    }
}
