internal import CMicroHTTPD
import Foundation
import ScorecastLogging
import Synchronization

/// What libmicrohttpd's callbacks call into: turns its request events into `HTTPRequest`s,
/// runs them through the router, and queues the responses.
///
/// Threading: the callbacks run on libmicrohttpd's threads and never wait for a handler. A
/// complete request starts its handler with `Task.immediate`: the handler runs on the
/// connection's thread up to its first suspension point. A handler that finishes without
/// suspending (most do: validation, rendering, a cached read) is answered at once, with no
/// thread hop. One that awaits (a database, a timer) gets its connection suspended
/// (`MHD_suspend_connection`) and continues on Swift's pool; when its response is ready the
/// connection is resumed and libmicrohttpd calls the access handler again, on the
/// connection's thread, to queue it. So a slow handler never holds a libmicrohttpd thread,
/// and no thread of the cooperative pool ever blocks in C. A route's gate runs the same way on
/// the headers, before the body is read (`screen`): libmicrohttpd reads no body while the
/// connection is suspended, and a response queued then is sent without reading it.
final class ServerCore: Sendable {
    let router: Router
    let configuration: HTTPServerConfiguration
    let logger: Logger
    let inFlight = InFlightRequests()
    /// Set once shutdown begins: responses then carry `Connection: close`.
    let draining = Atomic<Bool>(false)
    /// libmicrohttpd's latest error message, used to explain a failed start.
    let lastDaemonMessage = Mutex<String?>(nil)
    /// Header and body deadlines; the summary of refused connections.
    let connectionGuard: ConnectionGuard
    private let clock = ContinuousClock()

    init(router: Router, configuration: HTTPServerConfiguration, logger: Logger) {
        self.router = router
        self.configuration = configuration
        self.logger = logger
        self.connectionGuard = ConnectionGuard(
            headerTimeout: .seconds(configuration.headerTimeoutSeconds), bodyTimeout: .seconds(configuration.bodyTimeoutSeconds),
            minimumBodyRate: configuration.minimumBodyBytesPerSecond, rateGracePeriod: configuration.bodyRateGracePeriod,
            summaryInterval: configuration.refusalSummaryInterval, logger: logger)
    }

    /// The guard's id of `connection` (see `HTTPServer.launch`), if it has one.
    private static func guardID(of connection: OpaquePointer?) -> Int? {
        connection.flatMap(CMicroHTTPD_connection_context).map { Int(bitPattern: $0) }
    }

    // MARK: - Callbacks (on libmicrohttpd's threads)

    /// The URI callback: a request line arrived. Returns the retained context that becomes
    /// `*con_cls`; `requestCompleted` releases it.
    func requestStarted(uri: UnsafePointer<CChar>?) -> UnsafeMutableRawPointer {
        let context = RequestContext(target: RequestTarget(uri.map { String(cString: $0) } ?? "/"), started: clock.now)
        inFlight.begin()
        return Unmanaged.passRetained(context).toOpaque()
    }

    /// The access handler: called once when the headers are in (and again when a gate that
    /// suspended the connection has answered), once per body chunk, once at the end of the
    /// body, and once more after the connection is resumed with the handler's response.
    func handle(
        connection: OpaquePointer,
        method: UnsafePointer<CChar>?,
        uploadData: UnsafePointer<CChar>?,
        uploadSize: UnsafeMutablePointer<Int>,
        context: RequestContext
    ) -> MHD_Result {
        switch context.phase {
        case .new:
            return accept(connection: connection, method: method, context: context)
        case .screening(let reply):
            // Resumed: the gate has answered. (Should libmicrohttpd call us before, the
            // connection is suspended again instead of spinning.)
            guard let answer = reply.answerOrSuspend() else { return .YES }
            inFlight.settled(reply)
            let result = proceed(after: answer, on: connection, context: context)
            guard case .receiving = context.phase, uploadSize.pointee > 0 else { return result }
            return handle(connection: connection, method: method, uploadData: uploadData, uploadSize: uploadSize, context: context)
        case .receiving:
            let size = uploadSize.pointee
            guard size == 0 else {
                uploadSize.pointee = 0
                if let id = Self.guardID(of: connection) { connectionGuard.bodyProgress(id, bytes: size) }
                return receive(uploadData, size: size, context: context)
            }
            return dispatch(connection: connection, context: context)
        case .dispatched(let reply):
            // Resumed: the response is ready. (Should libmicrohttpd call us before, the
            // connection is suspended again instead of spinning.)
            guard case .response(let response) = reply.answerOrSuspend() else { return .YES }
            inFlight.settled(reply)
            return queue(response, on: connection, context: context)
        case .responded:
            // A response went out before the body was read: drop what still arrives.
            uploadSize.pointee = 0
            return .YES
        }
    }

    /// The completed callback: the request is over (answered, failed, timed out, or the
    /// daemon stopped). Releases the context.
    func requestCompleted(_ context: RequestContext, connection: OpaquePointer?, termination: MHD_RequestTerminationCode) {
        if let id = Self.guardID(of: connection) { connectionGuard.requestFinished(id) }
        if context.lingerAfterResponse, termination == .REQUEST_TERMINATED_COMPLETED_OK, let connection {
            connectionGuard.linger(descriptor: CMicroHTTPD_connection_socket(connection))
        }
        switch context.phase {
        case .screening(let reply), .dispatched(let reply):
            // The connection ended while a gate or handler was still working (daemon stop).
            reply.cancelTask()
            inFlight.settled(reply)
        case .new, .receiving, .responded:
            break
        }
        inFlight.end()
        if configuration.accessLog {
            AccessLog.write(context, termination: Self.outcome(termination), duration: clock.now - context.started, to: logger)
        }
    }

    /// libmicrohttpd's own diagnostics (bind failures, malformed requests, resets).
    func daemonMessage(_ message: String) {
        // At the caps libmicrohttpd says so once per connection: counted, summarised by the guard.
        if message.contains("reached connection limit") {
            connectionGuard.refusedAtCap()
            return
        }
        lastDaemonMessage.withLock { $0 = message }
        logger.debug("libmicrohttpd: \(message)")
    }

    // MARK: - Phases

    private func accept(connection: OpaquePointer, method: UnsafePointer<CChar>?, context: RequestContext) -> MHD_Result {
        context.methodText = method.map { String(cString: $0) } ?? "-"
        context.headers = Self.requestHeaders(of: connection)
        context.hasBody = context.headers["Transfer-Encoding"] != nil
            || context.headers["Content-Length"].map { $0.trimmingCharacters(in: .whitespaces) != "0" } == true
        if let given = context.headers["X-Request-ID"], RequestID.isAcceptable(given) {
            context.requestID = given
        } else {
            context.requestID = RequestID.generate()
        }
        if let id = Self.guardID(of: connection) { connectionGuard.headersReceived(id, requestID: context.requestID) }
        if let address = CMicroHTTPD_client_address(connection) {
            context.remoteAddress = SocketAddress.ipText(address)
        }
        // Every refusal below is answered before a byte of the body is read; the guard then
        // drains what the client sends anyway (a lingering close).
        context.lingerAfterResponse = context.hasBody
        let headerBytes = context.headers.reduce(0) { $0 + $1.name.utf8.count + $1.value.utf8.count + 4 }
        if headerBytes > configuration.maxHeaderBytes {
            return reject(.headersTooLarge(limit: configuration.maxHeaderBytes), on: connection, context: context)
        }
        if let problem = RequestFraming.problem(in: context.headers) {
            // The body's end is unknown: never read on, close after the answer.
            context.lingerAfterResponse = true
            return reject(problem, on: connection, context: context)
        }
        guard let method = HTTPMethod(rawValue: context.methodText) else {
            return reject(Problem(status: .notImplemented, detail: "the method \(context.methodText.prefix(32)) is not supported"), on: connection, context: context)
        }
        context.method = method
        let resolution = router.resolve(method: method, path: context.target.path)
        if case .matched(let route, _) = resolution, let limit = route.options.maxBodyBytes {
            context.bodyLimit = limit
        } else {
            context.bodyLimit = configuration.maxBodyBytes
        }
        if let declared = context.headers["Content-Length"].flatMap({ UInt64($0.trimmingCharacters(in: .whitespaces)) }),
           declared > UInt64(context.bodyLimit) {
            context.lingerAfterResponse = true
            return reject(.contentTooLarge(limit: context.bodyLimit), on: connection, context: context)
        }
        if case .matched(let route, _) = resolution, route.gate == nil {
            return proceed(after: .admitted, on: connection, context: context)
        }
        return screen(connection: connection, method: method, context: context)
    }

    /// Runs the route's gate (or, for a request that matches no route, the router) on the
    /// headers, before any of the body is read: a request without credentials is refused at
    /// once instead of holding its connection while it sends, or trickles, what it announced.
    private func screen(connection: OpaquePointer, method: HTTPMethod, context: RequestContext) -> MHD_Result {
        let request = HTTPRequest(
            method: method,
            path: context.target.path,
            queryItems: RequestTarget.queryItems(of: context.target.query) ?? [],
            headers: context.headers,
            body: [],
            remoteAddress: context.remoteAddress,
            requestID: context.requestID,
            logger: logger)
        let reply = PendingReply(connection: ConnectionHandle(pointer: connection), requestID: context.requestID)
        context.phase = .screening(reply)
        inFlight.awaiting(reply)
        // Bridges the C callback into Swift concurrency, as `dispatch` does: a gate answering
        // from memory answers here, without suspending the connection.
        let task = Task.immediate { [self] in
            _ = reply.complete(with: await screen(request))
        }
        reply.attach(task)
        guard let answer = reply.answerOrSuspend() else { return .YES }
        inFlight.settled(reply)
        return proceed(after: answer, on: connection, context: context)
    }

    /// Queues the gate's refusal, or goes on to read the body.
    private func proceed(after answer: ReplyAnswer, on connection: OpaquePointer, context: RequestContext) -> MHD_Result {
        switch answer {
        case .response(let refusal):
            return queue(refusal, on: connection, context: context)
        case .admitted:
            context.lingerAfterResponse = false
            context.phase = .receiving
            return .YES
        }
    }

    /// The router's screening of a request's headers; problems become their responses.
    private func screen(_ request: HTTPRequest) async -> ReplyAnswer {
        do {
            return try await router.screen(request).map(ReplyAnswer.response) ?? .admitted
        } catch let problem as Problem {
            return .response(problem.response(requestID: request.requestID))
        } catch {
            logger.error("gate failed", [
                "request_id": request.requestID,
                "method": request.method.rawValue,
                "path": String(request.path.prefix(AccessLog.maximumPathLength)),
                "error": String(describing: error),
            ])
            return .response(Problem.internalError.response(requestID: request.requestID))
        }
    }

    private func receive(_ data: UnsafePointer<CChar>?, size: Int, context: RequestContext) -> MHD_Result {
        if context.discardedBytes == 0, context.body.count + size <= context.bodyLimit, let data {
            UnsafeRawBufferPointer(start: data, count: size).withMemoryRebound(to: UInt8.self) { bytes in
                context.body.append(contentsOf: bytes)
            }
            return .YES
        }
        // Over the limit (a chunked body that gave no length): libmicrohttpd cannot answer in
        // the middle of a body, so read on and discard, up to `maximumDiscardBytes`, and answer
        // 413 at its end; past that, close the connection rather than keep reading.
        if context.discardedBytes == 0 {
            context.discardedBytes = context.body.count
            context.body = []
        }
        context.discardedBytes += size
        if context.discardedBytes > max(context.bodyLimit * 2 + 65536, Self.maximumDiscardBytes) {
            logger.debug("closing a connection whose body far exceeds the limit", ["request_id": context.requestID, "limit": String(context.bodyLimit)])
            return .NO
        }
        return .YES
    }

    private func dispatch(connection: OpaquePointer, context: RequestContext) -> MHD_Result {
        if let id = Self.guardID(of: connection) { connectionGuard.bodyReceived(id) }
        guard let method = context.method else { return .NO }
        if context.discardedBytes > 0 {
            return reject(.contentTooLarge(limit: context.bodyLimit), on: connection, context: context)
        }
        let target = context.target
        guard let queryItems = RequestTarget.queryItems(of: target.query) else {
            return reject(RequestTarget.invalidQuery, on: connection, context: context)
        }
        let request = HTTPRequest(
            method: method,
            path: target.path,
            queryItems: queryItems,
            headers: context.headers,
            body: context.body,
            remoteAddress: context.remoteAddress,
            requestID: context.requestID,
            logger: logger)
        context.body = []
        let reply = PendingReply(connection: ConnectionHandle(pointer: connection), requestID: context.requestID)
        context.phase = .dispatched(reply)
        inFlight.awaiting(reply)
        // Bridges the C callback into Swift concurrency. `immediate`: the handler starts here,
        // on this thread, and leaves it at its first suspension point.
        let task = Task.immediate { [self] in
            _ = reply.complete(with: await respond(to: request))
        }
        reply.attach(task)
        guard case .response(let response) = reply.answerOrSuspend() else { return .YES }
        inFlight.settled(reply)
        return queue(response, on: connection, context: context)
    }

    /// Runs the router (the gate already ran on the headers); problems become their responses,
    /// other errors a bare 500.
    func respond(to request: HTTPRequest) async -> HTTPResponse {
        do {
            return try await router.respond(to: request, screened: true)
        } catch let problem as Problem {
            return problem.response(requestID: request.requestID)
        } catch {
            logger.error("handler failed", [
                "request_id": request.requestID,
                "method": request.method.rawValue,
                "path": String(request.path.prefix(AccessLog.maximumPathLength)),
                "error": String(describing: error),
            ])
            return Problem.internalError.response(requestID: request.requestID)
        }
    }

    private func reject(_ problem: Problem, on connection: OpaquePointer, context: RequestContext) -> MHD_Result {
        queue(problem.response(requestID: context.requestID), on: connection, context: context)
    }

    private func queue(_ response: HTTPResponse, on connection: OpaquePointer, context: RequestContext) -> MHD_Result {
        // 1xx, 204 and 304 responses have no body, whatever the handler put there.
        let code = response.status.code
        let body = code < 200 || code == 204 || code == 304 ? [] : response.body
        context.phase = .responded
        context.status = code
        context.responseBytes = context.method == .head ? 0 : body.count
        let created = body.withUnsafeBytes { bytes in
            // MUST_COPY: libmicrohttpd keeps its own copy, so the Swift array may go away.
            MHD_create_response_from_buffer(bytes.count, UnsafeMutableRawPointer(mutating: bytes.baseAddress), .RESPMEM_MUST_COPY)
        }
        guard let mhdResponse = created else { return .NO }
        defer { MHD_destroy_response(mhdResponse) }
        for field in response.headers where !Self.transportHeaders.contains(field.name.lowercased()) {
            // libmicrohttpd refuses names or values with CR/LF: a header injection attempt is dropped.
            if MHD_add_response_header(mhdResponse, field.name, field.value) == .NO {
                logger.debug("dropped an invalid response header", ["request_id": context.requestID, "header": String(field.name.prefix(64))])
            }
        }
        _ = MHD_add_response_header(mhdResponse, "X-Request-ID", context.requestID)
        if draining.load(ordering: .relaxed) || context.lingerAfterResponse {
            _ = MHD_add_response_header(mhdResponse, "Connection", "close")
        }
        return MHD_queue_response(connection, UInt32(code), mhdResponse)
    }

    /// How much of an over-long chunked body is read and dropped to answer it 413.
    static let maximumDiscardBytes = 64 << 20

    /// Headers libmicrohttpd writes itself (framing) or that the server sets.
    private static let transportHeaders: Set<String> = ["content-length", "transfer-encoding", "connection", "x-request-id"]

    private static func requestHeaders(of connection: OpaquePointer) -> HTTPHeaders {
        var headers = HTTPHeaders()
        withUnsafeMutablePointer(to: &headers) { pointer in
            _ = MHD_get_connection_values_n(connection, .HEADER_KIND, { cls, _, key, keySize, value, valueSize in
                guard let cls, let key else { return .YES }
                let headers = cls.assumingMemoryBound(to: HTTPHeaders.self)
                let name = String(decoding: UnsafeRawBufferPointer(start: key, count: keySize), as: UTF8.self)
                let text = value.map { String(decoding: UnsafeRawBufferPointer(start: $0, count: valueSize), as: UTF8.self) } ?? ""
                headers.pointee.add(name, text)
                return .YES
            }, pointer)
        }
        return headers
    }

    private static func outcome(_ code: MHD_RequestTerminationCode) -> String? {
        switch code {
        case .REQUEST_TERMINATED_COMPLETED_OK: nil
        case .REQUEST_TERMINATED_WITH_ERROR: "error"
        case .REQUEST_TERMINATED_TIMEOUT_REACHED: "timeout"
        case .REQUEST_TERMINATED_DAEMON_SHUTDOWN: "shutdown"
        case .REQUEST_TERMINATED_READ_ERROR: "read-error"
        case .REQUEST_TERMINATED_CLIENT_ABORT: "client-abort"
        default: "terminated"
        }
    }
}
