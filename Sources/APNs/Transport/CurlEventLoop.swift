import Clocks
internal import CCurl
internal import CThreadName
import CurlHTTP
import Foundation
import ScorecastLogging

/// The curl thread: one thread that owns a libcurl multi handle and drives every transfer
/// with `curl_multi_perform` / `curl_multi_poll`. Callers never touch curl; they hand
/// transfers over through the `LoopMailbox`, which wakes the poll.
///
/// Confined to its own thread (not `Sendable`): created and run by `CurlEventLoop.start`.
///
/// Known libcurl 7.88 behaviour (Debian 12): on a reused HTTP/2 connection it answers every
/// response that ends without a body (APNs' 200s) with RST_STREAM(STREAM_CLOSED). Servers with
/// a rapid-reset guard (nghttp2 since CVE-2023-44487: 1,000 resets, then 33 a second) reply
/// with GOAWAY about every thousand requests in a burst. Streams above the GOAWAY's last id are
/// refused and resent by libcurl itself, except the last one left on the connection, which
/// libcurl fails with a bare `CURLE_HTTP2` (`TransportErrorMapping.neverProcessed` recognises
/// it); that one and the requests caught in the connection's close are resent here when
/// `ResendPolicy` allows, so a burst loses nothing (measured by the APNs tests'
/// `rapidResetGuardUnderLoad`; docs/decisions/libcurl.md has the figures).
final class CurlEventLoop {
    private let mailbox: LoopMailbox
    private let multi: OpaquePointer
    private let options: TransportOptions
    private let logger: Logger
    private let resendPolicy: ResendPolicy
    private let ageLimit: IdleAgeLimit
    private let openConnections: OpenConnections
    /// One per endpoint met so far (a client has two); kept until after `curl_multi_cleanup`,
    /// which closes the last connections through their socket accounts.
    private var lanes: [EndpointLane] = []

    private var idleHandles: [EasyHandle] = []
    /// The answers read in this turn, resumed together once every finished transfer is read:
    /// a burst of resumes wakes the cooperative pool once, one resume between libcurl calls
    /// each time.
    private var answered: [(Transfer, HTTPResponse)] = []
    private var active: [UInt64: EasyHandle] = [:]
    private var lastSweep: ContinuousClock.Instant

    /// How often queued transfers are checked for a passed deadline when streams are full.
    private static let sweepInterval: Duration = .milliseconds(50)
    /// The longest a submission waits for the curl thread while other transfers are in flight
    /// (it is not woken for each; see `LoopMailbox`): it comes back at every answer, and at
    /// the latest after this.
    static let batchWindowMilliseconds: Int32 = 1

    private init(mailbox: LoopMailbox, options: TransportOptions, openConnections: OpenConnections, logger: Logger) {
        self.mailbox = mailbox
        self.openConnections = openConnections
        self.multi = mailbox.multi.raw
        self.options = options
        self.logger = logger
        self.resendPolicy = ResendPolicy(maxConnectionRetries: options.maxConnectionRetries)
        self.ageLimit = IdleAgeLimit(maxIdle: .seconds(options.idleConnectionMaxAgeSeconds))
        self.lastSweep = options.clock.monotonicNow()
    }

    /// Creates the multi handle and starts the curl thread; returns the mailbox to reach it.
    /// - Parameter openConnections: counts the connections the loop opens and closes.
    static func start(options: TransportOptions, openConnections: OpenConnections, logger: Logger) throws(APNsClientError) -> LoopMailbox {
        guard CurlGlobal.ensureInitialized() else {
            throw APNsClientError(.transport, "curl_global_init failed")
        }
        guard CurlGlobal.supportsHTTP2 else {
            throw APNsClientError(.invalidConfiguration, "this libcurl was built without HTTP/2, which APNs requires")
        }
        guard let multi = curl_multi_init() else {
            throw APNsClientError(.transport, "curl_multi_init failed")
        }
        // Streams on one connection rather than a connection per request; at most
        // maxConcurrentStreams per connection (curl also honours the server's own SETTINGS
        // limit), at most maxConnectionsPerHost connections to each host.
        let settings: [(CURLMoption, Int)] = [
            (CURLMOPT_PIPELINING, Int(CURLPIPE_MULTIPLEX)),
            (CURLMOPT_MAX_CONCURRENT_STREAMS, options.maxConcurrentStreams),
            (CURLMOPT_MAX_HOST_CONNECTIONS, options.maxConnectionsPerHost),
            (CURLMOPT_MAXCONNECTS, max(4, options.maxConnectionsPerHost * 4)),
        ]
        for (option, value) in settings where ccurl_multi_setopt_long(multi, option, value) != CURLM_OK {
            curl_multi_cleanup(multi)
            throw APNsClientError(.transport, "curl_multi_setopt(\(option.rawValue)) failed")
        }
        let mailbox = LoopMailbox(multi: MultiPointer(raw: multi))
        let thread = Thread {
            // The kernel's name, which `top -H`, `ps -L` and perf show and by which the benchmark
            // finds the client's CPU.
            _ = scorecast_name_this_thread(APNsClient.threadName)
            CurlEventLoop(mailbox: mailbox, options: options, openConnections: openConnections, logger: logger).run()
        }
        thread.start()
        return mailbox
    }

    // MARK: - The loop

    private func run() {
        logger.debug("curl thread started")
        while true {
            let batch = mailbox.take()
            if batch.stopping {
                shutDown(alsoFailing: batch.submissions)
                logger.debug("curl thread stopped")
                return
            }
            for transfer in batch.submissions { accept(transfer) }
            for ids in batch.cancellations { cancel(ids) }
            startQueued()

            var running: Int32 = 0
            let performed = curl_multi_perform(multi, &running)
            if performed != CURLM_OK {
                logger.error("curl_multi_perform failed", ["code": String(performed.rawValue)])
            }
            let finished = drainCompletions()
            startQueued()
            expireQueued()

            // Busy: requests flow (this turn took some or finished some) and more are in flight,
            // so more submissions are likely and the batch window gathers them. Requests merely
            // outstanding (APNs slow to answer, a black hole) do not keep the thread waking each
            // millisecond: it sleeps until an answer or a submission's wakeup.
            let busy = (!batch.submissions.isEmpty || finished > 0) && lanes.contains { $0.inFlight > 0 }
            let pending = mailbox.prepareToPoll(busy: busy)
            let timeout: Int32 = pending ? 0 : busy ? Self.batchWindowMilliseconds : lanes.contains { !$0.queue.isEmpty } ? 50 : 1000
            let polled = curl_multi_poll(multi, nil, 0, timeout, nil)
            if polled != CURLM_OK {
                logger.error("curl_multi_poll failed", ["code": String(polled.rawValue)])
            }
        }
    }

    private func accept(_ transfer: Transfer) {
        if transfer.cancellation.isRaised {
            transfer.fail(TransportErrorMapping.cancelled(onStream: false))
            return
        }
        lane(for: transfer.request.endpoint).queue.append(transfer)
    }

    /// The lane of `endpoint`, made on first use.
    private func lane(for endpoint: APNsEndpoint) -> EndpointLane {
        for lane in lanes where lane.endpoint == endpoint { return lane }
        let lane = EndpointLane(endpoint: endpoint, tally: openConnections)
        lanes.append(lane)
        return lane
    }

    /// Moves queued transfers into curl while their endpoint has free streams.
    private func startQueued() {
        for lane in lanes {
            while lane.inFlight < lane.streamCap(warm: options.inFlightCapPerEndpoint), let transfer = lane.queue.popFirst() {
                start(transfer, on: lane)
            }
        }
    }

    private func start(_ transfer: Transfer, on lane: EndpointLane) {
        if transfer.cancellation.isRaised {
            transfer.fail(TransportErrorMapping.cancelled(onStream: false))
            return
        }
        let now = options.clock.monotonicNow()
        guard now < transfer.deadline else {
            transfer.fail(TransportErrorMapping.deadlineWhileQueued())
            return
        }
        guard let handle = idleHandles.popLast() ?? EasyHandle(options: options) else {
            transfer.fail(TransportErrorMapping.notStarted("no easy handle"))
            return
        }
        let fresh = ageLimit.requiresFreshConnection(lastActivity: lane.lastActivity, inFlight: lane.inFlight, now: now)
        if fresh {
            logger.debug("the connection sat idle past its age limit; opening a fresh one", ["endpoint": lane.endpoint.description])
            lane.warmedUp = false
        }
        let remaining = Self.milliseconds(transfer.deadline - now)
        let connectTimeout = min(remaining, Self.milliseconds(options.connectTimeout))
        // The retained reference travels through curl as user data; it is released when the
        // transfer completes (drainCompletions), is cancelled, or fails to start.
        let userData = Unmanaged.passRetained(handle).toOpaque()
        if let failedOption = handle.prepare(for: transfer, timeoutMilliseconds: remaining, connectTimeoutMilliseconds: connectTimeout,
                                             freshConnection: fresh, socketAccount: lane.socketAccountPointer, userData: userData) {
            Unmanaged<EasyHandle>.fromOpaque(userData).release()
            recycle(handle)
            transfer.fail(TransportErrorMapping.notStarted("option \(failedOption)"))
            return
        }
        let added = curl_multi_add_handle(multi, handle.raw)
        guard added == CURLM_OK else {
            Unmanaged<EasyHandle>.fromOpaque(userData).release()
            recycle(handle)
            transfer.fail(TransportErrorMapping.notStarted("curl_multi_add_handle (\(added.rawValue))"))
            return
        }
        transfer.attempts.add(1, ordering: .relaxed)
        handle.startedAt = now
        handle.lane = lane
        active[transfer.id] = handle
        lane.inFlight += 1
        lane.lastActivity = now
    }

    /// Finishes every transfer libcurl reports done; returns how many.
    @discardableResult
    private func drainCompletions() -> Int {
        let now = options.clock.monotonicNow()
        var finished = 0
        var remaining: Int32 = 0
        while let message = curl_multi_info_read(multi, &remaining) {
            guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle else { continue }
            let result = ccurl_message_result(message)
            var userData: UnsafeMutableRawPointer?
            _ = ccurl_easy_getinfo_pointer(easy, CURLINFO_PRIVATE, &userData)
            // The message is invalid after remove_handle: everything needed was read above.
            curl_multi_remove_handle(multi, easy)
            guard let userData else {
                logger.error("a finished curl transfer carried no user data")
                continue
            }
            let handle = Unmanaged<EasyHandle>.fromOpaque(userData).takeRetainedValue()
            finish(handle, result: result, now: now)
            finished += 1
        }
        for (transfer, response) in answered { transfer.answer(response) }
        answered.removeAll(keepingCapacity: true)
        return finished
    }

    private func finish(_ handle: EasyHandle, result: CURLcode, now: ContinuousClock.Instant) {
        guard let transfer = handle.transfer, let lane = handle.lane else {
            recycle(handle)
            return
        }
        let endpoint = lane.endpoint
        active[transfer.id] = nil
        lane.inFlight -= 1
        lane.lastActivity = now
        if result == CURLE_OK && !handle.spokeHTTP2 {
            recycle(handle)
            transfer.fail(TransportErrorMapping.noHTTP2(endpoint))
            return
        }
        if result == CURLE_OK {
            lane.warmedUp = true
            let response = handle.takeResponse(latency: now - handle.startedAt)
            recycle(handle)
            answered.append((transfer, response))
            return
        }
        let error = TransportErrorMapping.error(endpoint, code: result, detail: handle.errorDetail, reachedTransfer: handle.reachedTransfer,
                                                responseBytes: handle.responseBytes, responseTooLarge: handle.responseTooLarge,
                                                limit: options.maxResponseBytes, proxyStatus: handle.proxyStatus)
        recycle(handle)
        if [.connectionLost, .connectionFailed, .tlsFailure].contains(error.code) { lane.warmedUp = false }
        if resendPolicy.shouldResend(error, retrySafe: transfer.request.retrySafe, failures: transfer.attempts.load(ordering: .relaxed),
                                     cancelled: transfer.cancellation.isRaised, now: now, deadline: transfer.deadline) {
            logger.debug("sending a request again after its connection broke", [
                "endpoint": endpoint.description, "error": error.code.rawValue,
                "never_processed": String(error.neverProcessed)])
            lane.queue.prepend(transfer)
            return
        }
        logger.debug("request failed", ["endpoint": endpoint.description, "error": error.message])
        transfer.fail(error)
    }

    private func cancel(_ ids: Range<UInt64>) {
        for id in ids {
            guard let handle = active.removeValue(forKey: id) else { continue }
            curl_multi_remove_handle(multi, handle.raw)
            Unmanaged.passUnretained(handle).release()
            guard let transfer = handle.transfer else {
                recycle(handle)
                continue
            }
            handle.lane?.inFlight -= 1
            recycle(handle)
            transfer.fail(TransportErrorMapping.cancelled(onStream: true))
        }
        for lane in lanes where !lane.queue.isEmpty {
            for transfer in lane.queue.removeAll(where: { ids.contains($0.id) }) {
                transfer.fail(TransportErrorMapping.cancelled(onStream: false))
            }
        }
    }

    /// Fails queued transfers whose deadline passed while every stream was busy: checks the
    /// front of each queue every turn and the whole queue every `sweepInterval`.
    private func expireQueued() {
        let now = options.clock.monotonicNow()
        let sweepAll = now - lastSweep >= Self.sweepInterval
        if sweepAll { lastSweep = now }
        for lane in lanes where !lane.queue.isEmpty {
            var expired: [Transfer] = []
            while let first = lane.queue.first, first.deadline <= now, let transfer = lane.queue.popFirst() {
                expired.append(transfer)
            }
            if sweepAll { expired += lane.queue.removeAll(where: { $0.deadline <= now }) }
            for transfer in expired {
                transfer.fail(TransportErrorMapping.deadlineWhileQueued())
            }
        }
    }

    private func recycle(_ handle: EasyHandle) {
        handle.clear()
        if idleHandles.count < options.inFlightCapPerEndpoint { idleHandles.append(handle) }
    }

    private func shutDown(alsoFailing submissions: [Transfer]) {
        for (_, handle) in active {
            curl_multi_remove_handle(multi, handle.raw)
            Unmanaged.passUnretained(handle).release()
            handle.transfer?.fail(TransportErrorMapping.shutdown(onStream: true))
            handle.clear()
        }
        active.removeAll()
        for lane in lanes {
            while let transfer = lane.queue.popFirst() {
                transfer.fail(TransportErrorMapping.shutdown(onStream: false))
            }
        }
        for transfer in submissions { transfer.fail(TransportErrorMapping.shutdown(onStream: false)) }
        idleHandles.removeAll()
        curl_multi_cleanup(multi)
        lanes.removeAll()  // the last connection was closed (and counted) by the cleanup
        for transfer in mailbox.markStopped() { transfer.fail(TransportErrorMapping.shutdown(onStream: false)) }
    }

    private static func milliseconds(_ duration: Duration) -> Int {
        let (seconds, attoseconds) = duration.components
        guard seconds < 1_000_000_000 else { return 1_000_000_000_000 }
        return max(1, Int(seconds) * 1000 + Int(attoseconds / 1_000_000_000_000_000))
    }
}
