internal import CNGHTTP2
internal import COpenSSL
import ScorecastCrypto
import Foundation

/// One accepted TLS connection speaking HTTP/2: the socket, its SSL object and an nghttp2
/// server session, driven by the loop thread of its server.
///
/// Bytes flow socket → `SSL_read` → `nghttp2_session_mem_recv` (which calls back into the
/// stream methods below) and back through `nghttp2_session_mem_send` → one gathered
/// `SSL_write`. Never touched off its loop thread.
final class H2Connection: EventLoopHandler {
    /// The server-wide id of this connection (used in logs and the request log).
    let id: UInt64
    private let fd: Int32
    private let ssl: OpaquePointer
    private unowned let server: H2Server
    private var session: OpaquePointer?
    private var handshaking = true
    private var closed = false
    private var streams: [Int32: H2Stream] = [:]
    private var streamsOpened = 0
    /// The stream whose header block is being decoded.
    private var headerStream: (id: Int32, stream: H2Stream)?
    /// Builds request header lists, reusing what repeats from request to request.
    private var headerCache = H2HeaderCache()
    /// The last stream processed, once GOAWAY is submitted.
    private var goAwayLastStreamID: Int32?
    private var handlerState: AnyObject?
    private var advertisedStreamLimit: UInt32 = 0
    private var output: [UInt8] = []
    private var outputOffset = 0
    private var interest = Interest.input
    private var readScheduled = false
    private let readBuffer: UnsafeMutablePointer<UInt8>
    // Scratch space reused by every response of this connection.
    private var headerBytes: [UInt8] = []
    private var headerSpans: [(nameStart: Int, nameCount: Int, valueStart: Int, valueCount: Int)] = []
    private var nameValues: [nghttp2_nv] = []

    private static let readBufferSize = 64 * 1024
    private static let gatherLimit = 64 * 1024
    /// Request bodies are kept up to this size; beyond it only the length is counted
    /// (APNs' own limits are far below, so larger bodies only need to be measured).
    static let storedBodyLimit = 64 * 1024

    init(id: UInt64, fd: Int32, ssl: OpaquePointer, server: H2Server) {
        self.id = id
        self.fd = fd
        self.ssl = ssl
        self.server = server
        self.readBuffer = .allocate(capacity: Self.readBufferSize)
        output.reserveCapacity(Self.gatherLimit)
        headerBytes.reserveCapacity(512)
        headerSpans.reserveCapacity(8)
        nameValues.reserveCapacity(8)
    }

    deinit {
        readBuffer.deallocate()
    }

    /// Recovers the connection from nghttp2's `user_data`.
    static func from(_ pointer: UnsafeMutableRawPointer) -> H2Connection {
        Unmanaged<H2Connection>.fromOpaque(pointer).takeUnretainedValue()
    }

    // MARK: - Readiness

    func handle(events: UInt32) {
        if closed { return }
        if handshaking {
            continueHandshake()
            return
        }
        if events & Epoll.output != 0 {
            flush()
        }
        // While answers are stuck behind a slow reader, new requests are not read either
        // (back-pressure): the socket is then watched for writability only.
        // A hang-up or error is read even then, so the failure is seen and the socket closed.
        let failed = events & (Epoll.hangUp | Epoll.error) != 0
        if !closed && ((!writeBlocked && events & Epoll.input != 0) || failed) {
            readAvailable()
        }
    }

    private func continueHandshake() {
        ERR_clear_error()
        let result = SSL_do_handshake(ssl)
        if result == 1 {
            handshaking = false
            guard startSession() else {
                close()
                return
            }
            readAvailable()
            return
        }
        switch SSL_get_error(ssl, result) {
        case SSL_ERROR_WANT_READ:
            watch(.input)
        case SSL_ERROR_WANT_WRITE:
            watch(.output)
        default:
            server.logger.debug("TLS handshake failed", ["connection": "\(id)", "error": OpenSSLErrorQueue.message()])
            close()
        }
    }

    private func startSession() -> Bool {
        var session: OpaquePointer?
        let userData = Unmanaged.passUnretained(self).toOpaque()
        guard nghttp2_session_server_new(&session, server.callbacks.table, userData) == 0, let session else {
            return false
        }
        self.session = session
        let handlerState = server.handler.makeConnectionState(connectionID: id)
        self.handlerState = handlerState
        advertisedStreamLimit = server.handler.streamLimit(for: handlerState)
        var settings = [
            nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS.rawValue), value: advertisedStreamLimit),
            nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE.rawValue), value: 1 << 20),
        ]
        guard nghttp2_submit_settings(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), &settings, settings.count) == 0 else {
            return false
        }
        // A larger connection window so that many streams of full-size payloads are never held
        // back waiting for WINDOW_UPDATE.
        _ = nghttp2_session_set_local_window_size(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), 0, 16 << 20)
        return true
    }

    // MARK: - Reading

    private func readAvailable() {
        guard let session else { return }
        // Bounded so one busy client cannot starve the loop (see `resumeReadingIfBuffered`).
        var drained = false
        for _ in 0..<32 {
            ERR_clear_error()
            let count = SSL_read(ssl, readBuffer, Int32(Self.readBufferSize))
            if count > 0 {
                let consumed = nghttp2_session_mem_recv(session, readBuffer, Int(count))
                if consumed < 0 {
                    server.logger.debug("HTTP/2 receive failed", ["connection": "\(id)", "error": String(cString: nghttp2_strerror(Int32(consumed)))])
                    close()
                    return
                }
                continue
            }
            let error = SSL_get_error(ssl, count)
            if error == SSL_ERROR_WANT_READ {
                drained = true
                break
            }
            if error == SSL_ERROR_WANT_WRITE {
                watch(.output)
                return
            }
            // Clean close (ZERO_RETURN), reset, or a TLS failure: the peer is gone.
            close()
            return
        }
        flush()
        // After WANT_READ any buffered bytes are an incomplete record: epoll reports the rest.
        if !drained { resumeReadingIfBuffered() }
    }

    /// Bytes OpenSSL has already read ahead are invisible to epoll: when reading stopped with
    /// some left (the round cap, or answers that had to wait for the peer), go on shortly.
    private func resumeReadingIfBuffered() {
        guard !closed, !writeBlocked, !readScheduled, SSL_has_pending(ssl) == 1 else { return }
        readScheduled = true
        server.loop.schedule(after: .zero) { [weak self] in
            guard let self else { return }
            self.readScheduled = false
            guard !self.closed, !self.writeBlocked else { return }
            self.readAvailable()
        }
    }

    // MARK: - Streams (called from nghttp2 callbacks)

    func beginStream(_ streamID: Int32) {
        // Streams above a GOAWAY's last stream id are never processed: the client retries them
        // elsewhere. (nghttp2 only drops them itself once the GOAWAY has gone out, and their
        // frames may already be in the same read.) Without state here they are ignored, and
        // nghttp2 closes them when the GOAWAY is sent.
        if let goAwayLastStreamID, streamID > goAwayLastStreamID { return }
        let stream = H2Stream()
        streams[streamID] = stream
        headerStream = (streamID, stream)
        streamsOpened += 1
        if goAwayLastStreamID == nil, let session, server.handler.shouldGoAway(afterStreams: streamsOpened) {
            goAwayLastStreamID = streamID
            let reason = Array(#"{"reason":"Shutdown"}"#.utf8)
            _ = nghttp2_submit_goaway(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), streamID, UInt32(NGHTTP2_NO_ERROR.rawValue), reason, reason.count)
        }
    }

    func header(streamID: Int32, name: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>) {
        // A header block is decoded in one go, so the stream is almost always the last one begun.
        let stream: H2Stream
        if let current = headerStream, current.id == streamID {
            stream = current.stream
        } else {
            guard let found = streams[streamID] else { return }
            stream = found
        }
        headerCache.add(name: name, value: value, to: stream)
    }

    func data(streamID: Int32, bytes: UnsafeBufferPointer<UInt8>) {
        guard let stream = streams[streamID] else { return }
        stream.request.bodyLength += bytes.count
        let room = Self.storedBodyLimit - stream.request.body.count
        if room > 0 { stream.request.body.append(contentsOf: bytes.prefix(room)) }
    }

    func requestComplete(streamID: Int32) {
        guard let stream = streams[streamID], let handlerState else { return }
        headerCache.finish(stream)
        let request = stream.request
        stream.request = H2Request()
        switch server.handler.handle(request, streamID: streamID, connection: handlerState) {
        case .respond(let response):
            submit(response, streamID: streamID)
        case .respondLater(let response, let delay):
            server.loop.schedule(after: delay) { [weak self] in
                self?.respondLate(response, streamID: streamID)
            }
        case .hold(let response, let held):
            // Released from any thread: the answer goes back through the loop's mailbox, and
            // finds this connection by id (it may have closed meanwhile).
            held.park { [server, id] in
                server.loop.post { server.respondLate(response, streamID: streamID, connectionID: id) }
            }
        case .reset(let errorCode):
            if let session {
                _ = nghttp2_submit_rst_stream(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), streamID, errorCode)
            }
        case .ignore:
            break
        }
        refreshStreamLimit()
    }

    /// Answers a stream whose answer was delayed or held, if the connection is still open (a
    /// stream the client has given up on is skipped by `submit`).
    func respondLate(_ response: H2Response, streamID: Int32) {
        guard !closed else { return }
        submit(response, streamID: streamID)
        flush()
    }

    func streamClosed(_ streamID: Int32) {
        streams[streamID] = nil
        if headerStream?.id == streamID { headerStream = nil }
    }

    func readBody(streamID: Int32, into buffer: UnsafeMutablePointer<UInt8>, capacity: Int, flags: UnsafeMutablePointer<UInt32>) -> Int {
        guard let stream = streams[streamID] else { return Int(NGHTTP2_ERR_CALLBACK_FAILURE.rawValue) }
        let remaining = stream.responseBody.count - stream.responseOffset
        let count = min(remaining, capacity)
        if count > 0 {
            stream.responseBody.withUnsafeBufferPointer { body in
                buffer.update(from: body.baseAddress! + stream.responseOffset, count: count)
            }
            stream.responseOffset += count
        }
        if stream.responseOffset == stream.responseBody.count {
            flags.pointee |= NGHTTP2_DATA_FLAG_EOF.rawValue
        }
        return count
    }

    // MARK: - Writing

    private func submit(_ response: H2Response, streamID: Int32) {
        guard let session, let stream = streams[streamID] else { return }
        // Names and values go into one reused byte buffer; nghttp2 copies them during the call
        // (no NO_COPY flags), so pointers into it only need to live until it returns.
        headerBytes.removeAll(keepingCapacity: true)
        headerSpans.removeAll(keepingCapacity: true)
        appendHeader(":status", Self.statusText(response.status))
        for header in response.headers { appendHeader(header.name, header.value) }
        if !response.body.isEmpty { appendHeader("content-length", String(response.body.count)) }
        stream.responseBody = response.body
        stream.responseOffset = 0
        let spans = headerSpans
        headerBytes.withUnsafeMutableBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return }
            nameValues.removeAll(keepingCapacity: true)
            for span in spans {
                nameValues.append(nghttp2_nv(
                    name: base + span.nameStart, value: base + span.valueStart,
                    namelen: span.nameCount, valuelen: span.valueCount, flags: UInt8(NGHTTP2_NV_FLAG_NONE.rawValue)))
            }
            nameValues.withUnsafeBufferPointer { nva in
                if response.body.isEmpty {
                    _ = nghttp2_submit_response(session, streamID, nva.baseAddress, nva.count, nil)
                } else {
                    var provider = nghttp2_data_provider(source: nghttp2_data_source(ptr: nil), read_callback: H2Callbacks.readBody)
                    _ = nghttp2_submit_response(session, streamID, nva.baseAddress, nva.count, &provider)
                }
            }
        }
    }

    private func appendHeader(_ name: String, _ value: String) {
        let nameStart = headerBytes.count
        headerBytes.append(contentsOf: name.utf8)
        let valueStart = headerBytes.count
        headerBytes.append(contentsOf: value.utf8)
        headerSpans.append((nameStart, valueStart - nameStart, valueStart, headerBytes.count - valueStart))
    }

    /// `"200"` etc. without formatting an integer per response.
    private static func statusText(_ status: Int) -> String {
        switch status {
        case 200: "200"
        case 201: "201"
        case 204: "204"
        case 400: "400"
        case 403: "403"
        case 429: "429"
        default: String(status)
        }
    }

    /// Sends SETTINGS when the handler's stream limit for this connection changed (a new limit
    /// set at run time, or the first authenticated request lifting a one-stream start).
    func refreshStreamLimit() {
        guard let session, let handlerState, !closed else { return }
        let limit = server.handler.streamLimit(for: handlerState)
        guard limit != advertisedStreamLimit else { return }
        advertisedStreamLimit = limit
        var settings = [nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS.rawValue), value: limit)]
        _ = nghttp2_submit_settings(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), &settings, settings.count)
    }

    /// Sends everything nghttp2 has queued, gathering frames into one buffer per `SSL_write`.
    func flush() {
        guard let session, !closed else { return }
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
                        watch(.output)
                        return
                    }
                    if error == SSL_ERROR_WANT_READ {
                        // TLS needs the peer's bytes first (a key update): wait for input,
                        // which ends with another flush.
                        watch(.input)
                        return
                    }
                    close()
                    return
                }
            }
            while output.count < Self.gatherLimit {
                var data: UnsafePointer<UInt8>?
                let count = nghttp2_session_mem_send(session, &data)
                if count < 0 {
                    close()
                    return
                }
                guard count > 0, let data else { break }
                output.append(contentsOf: UnsafeBufferPointer(start: data, count: count))
            }
            if output.isEmpty { break }
        }
        let wasBlocked = writeBlocked
        watch(.input)
        if nghttp2_session_want_read(session) == 0 && nghttp2_session_want_write(session) == 0 {
            close()
            return
        }
        if wasBlocked { resumeReadingIfBuffered() }
    }

    /// What the loop watches the socket for.
    private enum Interest {
        /// Readable: requests (or TLS records) to read.
        case input
        /// Writable only: answers are waiting for the peer to read.
        case output
    }

    private var writeBlocked: Bool { interest == .output }

    private func watch(_ wanted: Interest) {
        guard wanted != interest, !closed else { return }
        interest = wanted
        server.loop.modify(fd: fd, events: wanted == .input ? Epoll.input : Epoll.output)
    }

    // MARK: - Closing

    /// Tears the connection down at once: session, TLS and socket.
    func close() {
        guard !closed else { return }
        closed = true
        server.loop.unregister(fd: fd)
        if let session {
            nghttp2_session_del(session)
            self.session = nil
        }
        streams.removeAll()
        headerStream = nil
        ERR_clear_error()
        _ = SSL_shutdown(ssl)
        SSL_free(ssl)
        Foundation.close(fd)
        server.connectionClosed(id)
    }
}

/// A request being received and the response body being sent on one stream.
final class H2Stream {
    var request = H2Request()
    /// Regular and pseudo header fields received so far (see `H2HeaderCache`).
    var regularCount = 0
    var pseudoCount = 0
    /// Whether the regular fields stopped repeating the previous request's.
    var diverged = false
    var responseBody: [UInt8] = []
    var responseOffset = 0
}
