internal import CNGHTTP2
internal import COpenSSL
import Crypto
import Foundation

/// One HTTP/2 connection to an endpoint: a non-blocking socket, its OpenSSL client and an
/// nghttp2 client session, driven by the transport's loop thread (never touched elsewhere).
///
/// It goes resolving → connecting (one address after another) → TLS handshake (which must
/// select `h2` by ALPN) → open → closed. Bytes flow socket → `SSL_read` →
/// `nghttp2_session_mem_recv` (which calls back into the stream methods below) and back through
/// `nghttp2_session_mem_send` → one gathered `SSL_write` per flush. What it learns (established,
/// SETTINGS, GOAWAY, a stream's end, its own end) it reports to the loop, which decides.
final class H2ClientConnection {
    enum State {
        case resolving, connecting, handshaking, open, closed
    }

    let id: UInt64
    /// The loop's record of this connection's endpoint (its pool and queue).
    let endpointState: H2ClientLoop.EndpointState
    var endpoint: APNsEndpoint { endpointState.endpoint }
    private(set) var state = State.resolving
    private unowned let loop: H2ClientLoop
    private let tls: TLSClientContext
    private let maxResponseBytes: Int

    private var fd: Int32 = -1
    private var ssl: OpaquePointer?
    private var session: OpaquePointer?
    private var addresses: [SocketAddress] = []
    private var nextAddress = 0
    private var lastConnectErrno: Int32 = 0

    /// Streams by id, until nghttp2 reports them closed.
    private var streams: [Int32: H2ClientStream] = [:]
    /// The stream whose response headers are being decoded (a header block arrives in one go).
    private var headerStream: H2ClientStream?
    private var requestHeaders: H2RequestHeaders
    /// Client streams go out in increasing id order: every stream up to this one has had its
    /// HEADERS serialized, so the server may have acted on it.
    private var highestSentStreamID: Int32 = 0
    private(set) var goAwayLastStreamID: Int32?
    private var submittedAny = false

    /// When the connection started opening; the connect timeout runs from here.
    let openedAt: ContinuousClock.Instant
    /// Last time bytes arrived (PING is sent after `pingInterval` without any).
    private(set) var lastReadAt: ContinuousClock.Instant
    /// Since when no stream is open (for the idle age limit); `nil` while streams are open.
    private(set) var idleSince: ContinuousClock.Instant?
    /// When our unanswered PING went out.
    private(set) var pingSentAt: ContinuousClock.Instant?

    private var output: [UInt8] = []
    private var outputOffset = 0
    private var watchingOutput = false
    private var registered = false
    private let readBuffer: UnsafeMutablePointer<UInt8>
    /// Set when reading stopped with TLS bytes still buffered (epoll cannot see those).
    private(set) var readPending = false
    /// Set when frames were submitted and not yet flushed.
    var needsFlush = false
    /// Set by `retire()`: close once the last stream has ended.
    private var retiring = false

    private static let readBufferSize = 64 * 1024
    private static let gatherLimit = 64 * 1024
    private static let readsPerTurn = 32

    init(id: UInt64, endpointState: H2ClientLoop.EndpointState, tls: TLSClientContext, loop: H2ClientLoop,
         now: ContinuousClock.Instant) {
        self.id = id
        self.endpointState = endpointState
        self.tls = tls
        self.maxResponseBytes = loop.options.maxResponseBytes
        self.loop = loop
        self.openedAt = now
        self.lastReadAt = now
        self.requestHeaders = H2RequestHeaders(endpoint: endpointState.endpoint)
        self.readBuffer = .allocate(capacity: Self.readBufferSize)
        output.reserveCapacity(Self.gatherLimit)
    }

    deinit {
        readBuffer.deallocate()
    }

    /// Recovers the connection from nghttp2's `user_data`.
    static func from(_ pointer: UnsafeMutableRawPointer) -> H2ClientConnection {
        Unmanaged<H2ClientConnection>.fromOpaque(pointer).takeUnretainedValue()
    }

    /// Streams open on the session.
    var activeStreams: Int { streams.count }

    // MARK: - Opening

    /// Starts connecting to `addresses` in order.
    func connect(to addresses: [SocketAddress]) {
        guard state == .resolving else { return }
        self.addresses = addresses
        nextAddress = 0
        connectNextAddress()
    }

    /// The host name did not resolve.
    func resolutionFailed(_ detail: String) {
        guard state == .resolving else { return }
        fail(TransportErrorMapping.resolutionFailed(endpoint, detail: detail))
    }

    private func connectNextAddress() {
        while nextAddress < addresses.count {
            let address = addresses[nextAddress]
            nextAddress += 1
            let socketFD = socket(address.family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            guard socketFD >= 0 else {
                lastConnectErrno = errno
                continue
            }
            configureSocket(socketFD)
            let result = address.withSockaddr { Foundation.connect(socketFD, $0, $1) }
            if result == 0 || errno == EINPROGRESS {
                fd = socketFD
                state = .connecting
                registered = loop.register(fd: fd, events: Epoll.output, connection: self)
                watchingOutput = true
                if !registered {
                    lastConnectErrno = errno
                    Foundation.close(fd)
                    fd = -1
                    continue
                }
                return
            }
            lastConnectErrno = errno
            Foundation.close(socketFD)
        }
        fail(TransportErrorMapping.connectFailed(endpoint, errno: lastConnectErrno == 0 ? ECONNREFUSED : lastConnectErrno))
    }

    /// No Nagle delay (frames are already gathered); TCP keepalive notices a dead peer on
    /// connections kept open for hours (apns.md §9).
    private func configureSocket(_ socketFD: Int32) {
        func set(_ level: Int32, _ option: Int32, _ value: Int32) {
            var value = value
            _ = setsockopt(socketFD, level, option, &value, socklen_t(MemoryLayout<Int32>.size))
        }
        set(Int32(IPPROTO_TCP), TCP_NODELAY, 1)
        set(SOL_SOCKET, SO_KEEPALIVE, 1)
        set(Int32(IPPROTO_TCP), TCP_KEEPIDLE, Int32(clamping: loop.options.keepAliveIdleSeconds))
        set(Int32(IPPROTO_TCP), TCP_KEEPINTVL, Int32(clamping: loop.options.keepAliveIntervalSeconds))
        set(Int32(IPPROTO_TCP), TCP_KEEPCNT, 4)
    }

    private func connectFinished() {
        var error: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        if getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length) != 0 { error = errno }
        if error == EINPROGRESS || error == EALREADY { return }
        guard error == 0 else {
            lastConnectErrno = error
            loop.unregister(fd: fd)
            registered = false
            Foundation.close(fd)
            fd = -1
            state = .resolving
            connectNextAddress()
            return
        }
        guard let ssl = tls.makeSSL(fd: fd, host: HostName.bare(endpoint.host)) else {
            fail(TransportErrorMapping.tlsFailed(endpoint, verification: nil, detail: "SSL_new: \(OpenSSLErrorQueue.message())"))
            return
        }
        self.ssl = ssl
        state = .handshaking
        continueHandshake()
    }

    private func continueHandshake() {
        guard let ssl else { return }
        ERR_clear_error()
        let result = SSL_do_handshake(ssl)
        if result == 1 {
            handshakeDone(ssl)
            return
        }
        switch SSL_get_error(ssl, result) {
        case SSL_ERROR_WANT_READ:
            watch(output: false)
        case SSL_ERROR_WANT_WRITE:
            watch(output: true)
        default:
            let verify = SSL_get_verify_result(ssl)
            let verification = verify == Int(X509_V_OK) ? nil : String(cString: X509_verify_cert_error_string(verify))
            let detail = OpenSSLErrorQueue.message()
            fail(TransportErrorMapping.tlsFailed(endpoint, verification: verification,
                                                 detail: detail == "unknown error" ? "the handshake was cut off" : detail))
        }
    }

    private func handshakeDone(_ ssl: OpaquePointer) {
        var selected: UnsafePointer<UInt8>?
        var selectedLength: UInt32 = 0
        SSL_get0_alpn_selected(ssl, &selected, &selectedLength)
        guard selectedLength == 2, let selected, selected[0] == UInt8(ascii: "h"), selected[1] == UInt8(ascii: "2") else {
            fail(TransportErrorMapping.noHTTP2(endpoint))
            return
        }
        guard startSession() else {
            fail(TransportErrorMapping.submitFailed(endpoint, detail: "the HTTP/2 session could not be created"))
            return
        }
        state = .open
        watch(output: false)
        loop.connectionEstablished(self)
        flush()
        // The server's preface (SETTINGS) may have come with the last handshake record.
        readAvailable()
    }

    private func startSession() -> Bool {
        guard let callbacks = H2ClientCallbacks.shared.table else { return false }
        var option: OpaquePointer?
        guard nghttp2_option_new(&option) == 0, let option else { return false }
        defer { nghttp2_option_del(option) }
        // Closed streams are not kept for the RFC 7540 priority tree (we send no priorities).
        nghttp2_option_set_no_closed_streams(option, 1)
        var created: OpaquePointer?
        let userData = Unmanaged.passUnretained(self).toOpaque()
        guard nghttp2_session_client_new2(&created, callbacks, userData, option) == 0, let session = created else { return false }
        self.session = session
        // No server push; large windows so bodies never wait for WINDOW_UPDATE; no RFC 7540
        // priorities.
        var settings = [
            nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_ENABLE_PUSH.rawValue), value: 0),
            nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE.rawValue), value: 1 << 20),
            nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_NO_RFC7540_PRIORITIES.rawValue), value: 1),
        ]
        guard nghttp2_submit_settings(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), &settings, settings.count) == 0 else { return false }
        let firstStreamID = loop.options.firstStreamID
        if firstStreamID > 1 && firstStreamID % 2 == 1 { _ = nghttp2_session_set_next_stream_id(session, firstStreamID) }
        _ = nghttp2_session_set_local_window_size(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), 0, 16 << 20)
        return true
    }

    // MARK: - Readiness

    /// Called by the loop with the epoll bits that fired for this socket.
    func handle(events: UInt32) {
        switch state {
        case .resolving, .closed:
            return
        case .connecting:
            connectFinished()
        case .handshaking:
            continueHandshake()
        case .open:
            if events & Epoll.output != 0 { flush() }
            if state == .open && events & (Epoll.input | Epoll.hangUp | Epoll.error) != 0 { readAvailable() }
        }
    }

    /// Reads what is buffered (TLS records already read ahead); called by the loop when
    /// `readPending` was left set.
    func resumeReading() {
        readPending = false
        if state == .open { readAvailable() }
    }

    private func readAvailable() {
        guard let ssl, let session else { return }
        readPending = false
        var readAny = false
        for _ in 0..<Self.readsPerTurn {
            ERR_clear_error()
            let count = SSL_read(ssl, readBuffer, Int32(Self.readBufferSize))
            if count > 0 {
                readAny = true
                let consumed = nghttp2_session_mem_recv(session, readBuffer, Int(count))
                if consumed < 0 {
                    close(reason: "HTTP/2 protocol error: \(String(cString: nghttp2_strerror(Int32(consumed))))")
                    return
                }
                if state != .open { return }
                continue
            }
            let error = SSL_get_error(ssl, count)
            if error == SSL_ERROR_WANT_READ { break }
            if error == SSL_ERROR_WANT_WRITE {
                watch(output: true)
                break
            }
            if readAny { lastReadAt = loop.now }
            let reason: String
            switch error {
            case SSL_ERROR_ZERO_RETURN: reason = "the server closed the connection"
            case SSL_ERROR_SYSCALL: reason = errno == 0 ? "the server closed the connection" : TransportErrorMapping.describe(errno: errno)
            default: reason = "TLS error: \(OpenSSLErrorQueue.message())"
            }
            close(reason: reason)
            return
        }
        if readAny { lastReadAt = loop.now }
        if state == .open && SSL_has_pending(ssl) == 1 { readPending = true }
        flush()
    }

    // MARK: - Requests

    /// Submits `stream`'s request; returns an error when nghttp2 refuses it (the request was
    /// then not sent at all).
    func submit(_ stream: H2ClientStream) -> APNsClientError? {
        guard let session, state == .open, let transfer = stream.transfer else {
            return TransportErrorMapping.submitFailed(endpoint, detail: "the connection is not open")
        }
        stream.openedConnection = !submittedAny
        let source = Unmanaged.passUnretained(stream).toOpaque()
        let hasBody = !transfer.request.body.isEmpty
        let streamID = requestHeaders.withPairs(for: transfer.request) { pairs, count in
            if hasBody {
                var provider = nghttp2_data_provider(source: nghttp2_data_source(ptr: source), read_callback: H2ClientCallbacks.readBody)
                return nghttp2_submit_request(session, nil, pairs, count, &provider, source)
            }
            return nghttp2_submit_request(session, nil, pairs, count, nil, source)
        }
        guard streamID > 0 else {
            return TransportErrorMapping.submitFailed(endpoint, detail: String(cString: nghttp2_strerror(streamID)))
        }
        submittedAny = true
        stream.streamID = streamID
        streams[streamID] = stream
        idleSince = nil
        needsFlush = true
        return nil
    }

    /// Ends a stream whose request was given up (deadline, cancellation): RST_STREAM(CANCEL);
    /// the stream stays counted until nghttp2 reports it closed. Returns whether its HEADERS
    /// had gone out.
    func abandon(_ stream: H2ClientStream) -> Bool {
        stream.transfer = nil
        if let session, state == .open {
            _ = nghttp2_submit_rst_stream(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), stream.streamID, UInt32(NGHTTP2_CANCEL.rawValue))
            needsFlush = true
        }
        return stream.streamID <= highestSentStreamID
    }

    /// Calls `body` for each stream that still carries a request.
    func forEachPendingStream(_ body: (H2ClientStream) -> Void) {
        for stream in streams.values where stream.transfer != nil { body(stream) }
    }

    /// The stream carrying transfer `id`, if it is on this connection.
    func stream(carrying id: UInt64) -> H2ClientStream? {
        streams.values.first { $0.transfer?.id == id }
    }

    // MARK: - Keepalive

    /// Sends a PING (liveness check of a quiet connection).
    func ping(now: ContinuousClock.Instant) {
        guard let session, state == .open, pingSentAt == nil else { return }
        guard nghttp2_submit_ping(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), nil) == 0 else { return }
        pingSentAt = now
        flush()
    }

    // MARK: - nghttp2 callbacks (during mem_recv / mem_send, on the loop thread)

    func receivedHeader(streamID: Int32, name: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>) {
        let stream: H2ClientStream
        if let current = headerStream, current.streamID == streamID {
            stream = current
        } else {
            guard let found = streams[streamID] else { return }
            headerStream = found
            stream = found
        }
        if name.count == 7 && name[0] == UInt8(ascii: ":") {
            // ":status": three digits. An informational (1xx) head is followed by the real one.
            var status = 0
            for byte in value {
                guard byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") else { status = 0; break }
                status = status * 10 + Int(byte - UInt8(ascii: "0"))
            }
            if (100..<200).contains(status) {
                stream.headers.removeAll()
                stream.status = 0
            } else {
                stream.status = value.count == 3 ? status : 0
            }
            return
        }
        stream.headers[String(decoding: name, as: UTF8.self)] = String(decoding: value, as: UTF8.self)
    }

    func receivedData(streamID: Int32, bytes: UnsafeBufferPointer<UInt8>) {
        guard let stream = streams[streamID], !stream.tooLarge else { return }
        guard stream.body.count + bytes.count <= maxResponseBytes else {
            stream.tooLarge = true
            if let session {
                _ = nghttp2_submit_rst_stream(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), streamID, UInt32(NGHTTP2_CANCEL.rawValue))
            }
            needsFlush = true
            return
        }
        stream.body.append(contentsOf: bytes)
    }

    func receivedFrame(_ frame: UnsafePointer<nghttp2_frame>) {
        let type = frame.pointee.hd.type
        let flags = frame.pointee.hd.flags
        switch type {
        case UInt8(NGHTTP2_HEADERS.rawValue), UInt8(NGHTTP2_DATA.rawValue):
            if flags & UInt8(NGHTTP2_FLAG_END_STREAM.rawValue) != 0, let stream = streams[frame.pointee.hd.stream_id] {
                stream.complete = true
            }
        case UInt8(NGHTTP2_SETTINGS.rawValue):
            if flags & UInt8(NGHTTP2_FLAG_ACK.rawValue) == 0, let session {
                let limit = nghttp2_session_get_remote_settings(session, NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS)
                loop.connectionSettingsChanged(self, peerLimit: Int(limit))
            }
        case UInt8(NGHTTP2_GOAWAY.rawValue):
            goAwayLastStreamID = frame.pointee.goaway.last_stream_id
            loop.connectionGoingAway(self)
        case UInt8(NGHTTP2_PING.rawValue):
            if flags & UInt8(NGHTTP2_FLAG_ACK.rawValue) != 0 {
                pingSentAt = nil
                loop.pingAnswered(self)
            }
        default:
            break
        }
    }

    func sentHeaders(streamID: Int32) {
        if streamID > highestSentStreamID { highestSentStreamID = streamID }
    }

    func headersNotSent(streamID: Int32) {
        // nghttp2 closes such a stream with REFUSED_STREAM itself; this covers a stream it
        // never opened, so the request cannot be left waiting.
        guard streams[streamID] != nil else { return }
        streamClosed(streamID: streamID, errorCode: TransportErrorMapping.refusedStream)
    }

    func streamClosed(streamID: Int32, errorCode: UInt32) {
        guard let stream = streams.removeValue(forKey: streamID) else { return }
        if headerStream === stream { headerStream = nil }
        if streams.isEmpty { idleSince = loop.now }
        let answered = stream.complete && !stream.tooLarge
        guard let transfer = stream.transfer else {
            loop.streamEnded(self, stream: stream, transfer: nil, outcome: nil, answered: answered)
            return
        }
        stream.transfer = nil
        let outcome: Result<HTTPResponse, APNsClientError>
        if stream.tooLarge {
            outcome = .failure(TransportErrorMapping.responseTooLarge(limit: maxResponseBytes))
        } else if stream.complete {
            outcome = stream.status >= 200 ? .success(stream.response(now: loop.now)) : .failure(TransportErrorMapping.missingStatus(endpoint))
        } else if let goAwayLastStreamID, streamID > goAwayLastStreamID {
            outcome = .failure(TransportErrorMapping.goAwayRefused(endpoint))
        } else {
            outcome = .failure(TransportErrorMapping.streamClosed(endpoint, code: errorCode))
        }
        loop.streamEnded(self, stream: stream, transfer: transfer, outcome: outcome, answered: answered)
    }

    // MARK: - Writing

    /// Sends everything nghttp2 has queued, gathering frames into one buffer per `SSL_write`.
    func flush() {
        needsFlush = false
        guard let ssl, let session, state == .open else { return }
        if retiring && streams.isEmpty {
            // GOAWAY, then nghttp2 wants nothing more: the check at the end closes.
            _ = nghttp2_session_terminate_session(session, UInt32(NGHTTP2_NO_ERROR.rawValue))
        }
        while true {
            if outputOffset < output.count {
                ERR_clear_error()
                let pending = output.count - outputOffset
                let written = output.withUnsafeBufferPointer { buffer in
                    SSL_write(ssl, buffer.baseAddress! + outputOffset, Int32(pending))
                }
                if written > 0 {
                    outputOffset += Int(written)
                    if outputOffset < output.count { continue }
                    output.removeAll(keepingCapacity: true)
                    outputOffset = 0
                } else {
                    let error = SSL_get_error(ssl, written)
                    if error == SSL_ERROR_WANT_WRITE {
                        watch(output: true)
                        return
                    }
                    if error == SSL_ERROR_WANT_READ { return }
                    close(reason: error == SSL_ERROR_SYSCALL ? TransportErrorMapping.describe(errno: errno)
                                                            : "TLS error: \(OpenSSLErrorQueue.message())")
                    return
                }
            }
            while output.count < Self.gatherLimit {
                var data: UnsafePointer<UInt8>?
                let count = nghttp2_session_mem_send(session, &data)
                if count < 0 {
                    close(reason: "HTTP/2 error: \(String(cString: nghttp2_strerror(Int32(count))))")
                    return
                }
                guard count > 0, let data else { break }
                output.append(contentsOf: UnsafeBufferPointer(start: data, count: count))
            }
            if output.isEmpty { break }
        }
        watch(output: false)
        // After a GOAWAY (either way) nghttp2 wants nothing more once the last stream closed.
        if nghttp2_session_want_read(session) == 0 && nghttp2_session_want_write(session) == 0 {
            close(reason: goAwayLastStreamID != nil ? "the server closed the connection after GOAWAY" : "the session ended",
                  notifyPeer: true)
        }
    }

    private func watch(output wanted: Bool) {
        guard wanted != watchingOutput, registered else { return }
        watchingOutput = wanted
        loop.modify(fd: fd, events: wanted ? Epoll.input | Epoll.output : Epoll.input)
    }

    // MARK: - Closing

    /// Takes no more requests: lets the streams on it finish, then sends GOAWAY(NO_ERROR) and
    /// closes (see `flush`). Used when nghttp2 refuses a new stream, e.g. once the stream ids of
    /// a connection kept for hours run out.
    func retire() {
        guard state == .open else { return }
        retiring = true
        needsFlush = true
    }

    /// Sends GOAWAY(NO_ERROR) and closes (an idle connection past its age).
    func closeGracefully(reason: String) {
        if let session, state == .open {
            _ = nghttp2_session_terminate_session(session, UInt32(NGHTTP2_NO_ERROR.rawValue))
            flush()
        }
        close(reason: reason, notifyPeer: true)
    }

    /// Tears the connection down at once; requests still on it fail with `connectionLost`
    /// (never processed when their HEADERS had not gone out or were above the GOAWAY).
    /// - Parameter notifyPeer: send TLS close_notify first (the socket is known to be healthy).
    func close(reason: String, notifyPeer: Bool = false) {
        guard state != .closed else { return }
        let wasOpen = state == .open
        var failed: [(Transfer, APNsClientError)] = []
        for (streamID, stream) in streams {
            guard let transfer = stream.transfer else { continue }
            stream.transfer = nil
            if let goAwayLastStreamID, streamID > goAwayLastStreamID {
                failed.append((transfer, TransportErrorMapping.goAwayRefused(endpoint)))
            } else {
                failed.append((transfer, TransportErrorMapping.connectionClosed(endpoint, reason: reason, sent: streamID <= highestSentStreamID)))
            }
        }
        release(notifyPeer: notifyPeer)
        if wasOpen {
            loop.connectionClosed(self, failed: failed)
        } else {
            loop.connectionFailed(self, error: TransportErrorMapping.connectionClosed(endpoint, reason: reason, sent: false))
        }
    }

    /// Frees everything at once (shutdown) and returns the requests still on it.
    func abort() -> [Transfer] {
        guard state != .closed else { return [] }
        let pending = streams.values.compactMap(\.transfer)
        for stream in streams.values { stream.transfer = nil }
        release(notifyPeer: state == .open)
        return pending
    }

    /// Fails before the connection was established (also the loop's connect timeout).
    func fail(_ error: APNsClientError) {
        guard state != .closed else { return }
        release()
        loop.connectionFailed(self, error: error)
    }

    /// Frees the session, TLS and socket (no callbacks after this).
    private func release(notifyPeer: Bool = false) {
        state = .closed
        if let session {
            nghttp2_session_del(session)
            self.session = nil
        }
        streams.removeAll()
        headerStream = nil
        if let ssl {
            ERR_clear_error()
            if notifyPeer { _ = SSL_shutdown(ssl) }
            SSL_free(ssl)
            self.ssl = nil
        }
        if fd >= 0 {
            if registered { loop.unregister(fd: fd) }
            registered = false
            Foundation.close(fd)
            fd = -1
        }
    }
}
