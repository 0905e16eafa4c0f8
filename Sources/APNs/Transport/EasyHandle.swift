internal import CCurl
import CurlHTTP
import Foundation

/// One libcurl easy handle, reused for many requests. Confined to the curl thread (not
/// `Sendable`): it is created, configured, run and freed there.
///
/// While a transfer runs, libcurl holds an `Unmanaged` reference to this object in its
/// `PRIVATE` and `WRITEDATA` user data; the event loop takes the reference back when the
/// transfer completes or is removed.
final class EasyHandle {
    let raw: OpaquePointer
    /// The transfer now using this handle.
    var transfer: Transfer?
    /// The lane of the transfer's endpoint.
    var lane: EndpointLane?
    /// When the handle was given to the multi handle for the current transfer.
    var startedAt: ContinuousClock.Instant = .now

    private let errorBuffer: UnsafeMutablePointer<CChar>
    /// Rewritten for every request; libcurl holds `linkedHeaders`, which changes only when
    /// the list's storage grows.
    private let headerList = HeaderList()
    private var linkedHeaders: UnsafeMutablePointer<curl_slist>?
    /// What `CURLOPT_URL` was last set to, so the same URL is not copied into libcurl again.
    private var urlEndpoint: APNsEndpoint?
    private var urlPath = ""
    private var method: HTTPMethod?
    private var caFile: String?
    private var freshConnect = false
    private var socketAccount: UnsafeMutableRawPointer?
    private var uploadBuffer: UnsafeMutableRawBufferPointer?
    private var response: ResponseCollector
    /// Whether the write callback refused a body past the size cap.
    var responseTooLarge: Bool { response.tooLarge }

    /// The upload buffer libcurl allocates per handle: its minimum (16 KiB, against 64 KiB by
    /// default), still three times the largest APNs body (`PushTarget.payloadLimit`, 5 KiB).
    static let uploadBufferBytes = 16 * 1024

    /// Creates a handle with the options every APNs request shares; `nil` if libcurl cannot.
    init?(options: TransportOptions) {
        guard let raw = curl_easy_init() else { return nil }
        self.raw = raw
        response = ResponseCollector(maxBodyBytes: options.maxResponseBytes)
        errorBuffer = .allocate(capacity: Int(CURL_ERROR_SIZE))
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE))
        guard configureOnce(options) else {
            curl_easy_cleanup(raw)
            errorBuffer.deallocate()
            return nil
        }
    }

    deinit {
        curl_easy_cleanup(raw)
        errorBuffer.deallocate()
        uploadBuffer?.deallocate()
    }

    private func configureOnce(_ options: TransportOptions) -> Bool {
        var ok = true
        func set(_ option: CURLoption, _ value: Int) { ok = ok && ccurl_easy_setopt_long(raw, option, value) == CURLE_OK }
        // HTTP/2 over TLS, negotiated with ALPN; never fall back to HTTP/1.1 silently for
        // https (2TLS only allows 1.1 when the server does not offer h2).
        set(CURLOPT_HTTP_VERSION, CURL_HTTP_VERSION_2TLS)
        // Wait for an existing connection to confirm multiplexing instead of opening new ones.
        set(CURLOPT_PIPEWAIT, 1)
        // Signals are process-wide; curl must not use them from its own thread.
        set(CURLOPT_NOSIGNAL, 1)
        set(CURLOPT_TCP_NODELAY, 1)
        // Idle connections stay open for hours (apns.md §9); TCP keepalive notices dead peers.
        set(CURLOPT_TCP_KEEPALIVE, 1)
        set(CURLOPT_TCP_KEEPIDLE, options.keepAliveIdleSeconds)
        set(CURLOPT_TCP_KEEPINTVL, options.keepAliveIntervalSeconds)
        set(CURLOPT_MAXAGE_CONN, options.idleConnectionMaxAgeSeconds)
        // libcurl gives every handle that uploads a 64 KiB buffer and keeps it while the
        // handle waits in the idle pool (up to 200 of them: 12.5 MiB, 40 % of serve's heap
        // under heaptrack). APNs bodies are at most 5 KiB: libcurl's smallest buffer will do.
        set(CURLOPT_UPLOAD_BUFFERSIZE, Self.uploadBufferBytes)
        // Never follow anything but our own request, and never a protocol other than HTTPS.
        if let proxy = options.proxy {
            // libcurl keeps its own copy. The address may carry credentials: it is never
            // logged and never put in an error.
            ok = ok && ccurl_easy_setopt_string(raw, CURLOPT_PROXY, proxy) == CURLE_OK
        }
        set(CURLOPT_SSL_VERIFYPEER, 1)
        set(CURLOPT_SSL_VERIFYHOST, 2)
        set(CURLOPT_FOLLOWLOCATION, 0)
        ok = ok && ccurl_easy_setopt_pointer(raw, CURLOPT_ERRORBUFFER, errorBuffer) == CURLE_OK
        // Always a write callback: without one libcurl prints bodies to stdout. No header
        // callback: the few headers APNs answers with are read from libcurl once the transfer
        // is done (`takeResponse`), not parsed line by line as they arrive.
        ok = ok && ccurl_easy_setopt_write_function(raw, CURLOPT_WRITEFUNCTION, easyHandleWriteCallback) == CURLE_OK
        // Every connection's socket is opened and closed through these, so the transport
        // knows how many connections are open (`OpenConnections`).
        ok = ok && ccurl_easy_setopt_opensocket_function(raw, easyHandleOpenSocket) == CURLE_OK
        ok = ok && ccurl_easy_setopt_closesocket_function(raw, easyHandleCloseSocket) == CURLE_OK
        return ok
    }

    /// Sets the per-request options for `transfer` and points libcurl's user data at this
    /// handle. Returns a description of the option that failed, or `nil`.
    /// - Parameters:
    ///   - freshConnection: open a new connection instead of reusing one (`IdleAgeLimit`).
    ///   - socketAccount: the unretained `SocketAccount` of the request's endpoint, which
    ///     counts a connection this transfer opens and, later, its close.
    func prepare(for transfer: Transfer, timeoutMilliseconds: Int, connectTimeoutMilliseconds: Int,
                 freshConnection: Bool, socketAccount: UnsafeMutableRawPointer, userData: UnsafeMutableRawPointer) -> String? {
        let request = transfer.request
        self.transfer = transfer
        response.reset()
        errorBuffer[0] = 0

        // The URL and method stay set on the handle from one request to the next; the caches
        // are forgotten first so that a failed option is set again next time.
        if urlPath != request.path || urlEndpoint != request.endpoint {
            urlEndpoint = nil
            guard ccurl_easy_setopt_string(raw, CURLOPT_URL, request.url) == CURLE_OK else { return "URL" }
            urlEndpoint = request.endpoint
            urlPath = request.path
        }
        let previousMethod = method
        method = nil
        switch request.method {
        case .get, .delete:
            if previousMethod != request.method {
                guard ccurl_easy_setopt_long(raw, CURLOPT_HTTPGET, 1) == CURLE_OK else { return "HTTPGET" }
                let custom: String? = request.method == .delete ? "DELETE" : nil
                guard setCustomRequest(custom) else { return "CUSTOMREQUEST" }
            }
        case .post:
            if previousMethod != .post {
                guard setCustomRequest(nil) else { return "CUSTOMREQUEST" }
            }
            guard setUpload(request.body) else { return "POSTFIELDS" }
        }
        method = request.method

        headerList.removeAll()
        headerList.append("Accept:")
        if request.method == .post { headerList.append("content-type: application/json") }
        if let authorization = request.authorization { headerList.append(name: "authorization", value: authorization) }
        for header in request.headers { headerList.append(name: header.name, value: header.value) }
        let linked = headerList.link()
        if linked != linkedHeaders {
            guard ccurl_easy_setopt_slist(raw, CURLOPT_HTTPHEADER, linked) == CURLE_OK else { return "HTTPHEADER" }
            linkedHeaders = linked
        }

        if caFile != request.endpoint.caFile {
            let result = request.endpoint.caFile.map { ccurl_easy_setopt_string(raw, CURLOPT_CAINFO, $0) }
                ?? ccurl_easy_setopt_string(raw, CURLOPT_CAINFO, nil)
            guard result == CURLE_OK else { return "CAINFO" }
            caFile = request.endpoint.caFile
        }

        if freshConnect != freshConnection {
            guard ccurl_easy_setopt_long(raw, CURLOPT_FRESH_CONNECT, freshConnection ? 1 : 0) == CURLE_OK else { return "FRESH_CONNECT" }
            freshConnect = freshConnection
        }
        if self.socketAccount != socketAccount {
            guard ccurl_easy_setopt_pointer(raw, CURLOPT_OPENSOCKETDATA, socketAccount) == CURLE_OK,
                  ccurl_easy_setopt_pointer(raw, CURLOPT_CLOSESOCKETDATA, socketAccount) == CURLE_OK
            else { return "SOCKETDATA" }
            self.socketAccount = socketAccount
        }
        guard ccurl_easy_setopt_long(raw, CURLOPT_TIMEOUT_MS, max(1, timeoutMilliseconds)) == CURLE_OK,
              ccurl_easy_setopt_long(raw, CURLOPT_CONNECTTIMEOUT_MS, max(1, connectTimeoutMilliseconds)) == CURLE_OK
        else { return "TIMEOUT_MS" }
        guard ccurl_easy_setopt_pointer(raw, CURLOPT_PRIVATE, userData) == CURLE_OK,
              ccurl_easy_setopt_pointer(raw, CURLOPT_WRITEDATA, userData) == CURLE_OK
        else { return "user data" }
        return nil
    }

    private func setCustomRequest(_ method: String?) -> Bool {
        if let method { return ccurl_easy_setopt_string(raw, CURLOPT_CUSTOMREQUEST, method) == CURLE_OK }
        return ccurl_easy_setopt_string(raw, CURLOPT_CUSTOMREQUEST, nil) == CURLE_OK
    }

    /// `CURLOPT_POSTFIELDS` does not copy: the bytes live in a buffer this handle owns until
    /// the next request replaces them.
    private func setUpload(_ body: [UInt8]) -> Bool {
        if uploadBuffer.map({ $0.count < max(body.count, 1) }) ?? true {
            uploadBuffer?.deallocate()
            uploadBuffer = .allocate(byteCount: max(body.count, 64), alignment: 1)
        }
        guard let buffer = uploadBuffer, let base = buffer.baseAddress else { return false }
        body.withUnsafeBytes { bytes in
            if let source = bytes.baseAddress { base.copyMemory(from: source, byteCount: bytes.count) }
        }
        return ccurl_easy_setopt_off_t(raw, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(body.count)) == CURLE_OK
            && ccurl_easy_setopt_pointer(raw, CURLOPT_POSTFIELDS, base) == CURLE_OK
    }

    fileprivate func receiveBody(_ bytes: UnsafeRawBufferPointer) -> Int { response.receiveBody(bytes) }

    /// The finished response of the current transfer.
    func takeResponse(latency: Duration) -> HTTPResponse {
        var status = 0
        _ = ccurl_easy_getinfo_long(raw, CURLINFO_RESPONSE_CODE, &status)
        var connects = 0
        _ = ccurl_easy_getinfo_long(raw, CURLINFO_NUM_CONNECTS, &connects)
        return HTTPResponse(status: status, headers: apnsHeaders(), body: response.body, latency: latency,
                            connectionsOpened: connects)
    }

    /// The headers APNs defines (`APNsResponseHeaders`) in the final response (not a proxy's
    /// `CONNECT` answer, not a 1xx), from libcurl's own store of the transfer's headers, in one
    /// pass.
    private func apnsHeaders() -> APNsResponseHeaders {
        var headers = APNsResponseHeaders()
        var header: UnsafeMutablePointer<curl_header>?
        while let next = curl_easy_nextheader(raw, UInt32(CURLH_HEADER), -1, header) {
            header = next
            guard let name = next.pointee.name, let value = next.pointee.value,
                  let field = APNsResponseHeaders.Field(cName: name) else { continue }
            headers.keepFirst(field, String(cString: value))
        }
        return headers
    }

    /// Whether the finished transfer spoke HTTP/2 (ALPN may fall back to HTTP/1.1 when a
    /// server does not offer h2; APNs always does, so anything else is a wrong endpoint).
    var spokeHTTP2: Bool {
        var version = 0
        _ = ccurl_easy_getinfo_long(raw, CURLINFO_HTTP_VERSION, &version)
        return version == CURL_HTTP_VERSION_2_0
    }

    /// libcurl's own explanation of the last failure (no headers, so no token, are in it).
    var errorDetail: String {
        let text = String(cString: errorBuffer)
        return text.isEmpty ? "" : text
    }

    /// The proxy's status answer to `CONNECT`, 0 when no proxy was asked.
    var proxyStatus: Int {
        var status = 0
        _ = ccurl_easy_getinfo_long(raw, CURLINFO_HTTP_CONNECTCODE, &status)
        return status
    }

    /// Whether libcurl had reached the point of sending the request when the transfer ended.
    var reachedTransfer: Bool {
        var pretransfer: curl_off_t = 0
        _ = ccurl_easy_getinfo_off_t(raw, CURLINFO_PRETRANSFER_TIME_T, &pretransfer)
        return pretransfer > 0
    }

    /// Header and body bytes of a response that arrived for the current transfer (libcurl's own
    /// counts, which include what its write callbacks never saw).
    var responseBytes: Int {
        var headerBytes = 0
        _ = ccurl_easy_getinfo_long(raw, CURLINFO_HEADER_SIZE, &headerBytes)
        var bodyBytes: curl_off_t = 0
        _ = ccurl_easy_getinfo_off_t(raw, CURLINFO_SIZE_DOWNLOAD_T, &bodyBytes)
        return headerBytes + Int(bodyBytes)
    }

    /// Forgets the finished transfer so nothing of it is kept alive by an idle handle.
    func clear() {
        transfer = nil
        lane = nil
        response.reset(keepingBodyCapacityUpTo: 16_384)
    }
}

// libcurl calls these on the curl thread during curl_multi_perform. They must not capture
// anything: the handle arrives through the user-data pointer.
private let easyHandleWriteCallback: curl_write_callback = { data, size, count, userData in
    guard let userData else { return 0 }
    let handle = Unmanaged<EasyHandle>.fromOpaque(userData).takeUnretainedValue()
    return handle.receiveBody(UnsafeRawBufferPointer(start: data, count: size * count))
}

// libcurl opens and closes every connection's socket through these (on the curl thread), with
// the `SocketAccount` of the endpoint the connection was opened for as user data.
private let easyHandleOpenSocket: curl_opensocket_callback = { accountPointer, _, address in
    guard let address else { return -1 }
    // Close-on-exec: the service starts child processes (an embedded Postgres), which must
    // not inherit APNs connections.
    let type = address.pointee.socktype | Int32(SOCK_CLOEXEC.rawValue)
    let socket = Glibc.socket(address.pointee.family, type, address.pointee.protocol)
    if socket >= 0, let accountPointer {
        let account = Unmanaged<SocketAccount>.fromOpaque(accountPointer).takeUnretainedValue()
        account.tally.changed(account.endpoint, by: 1)
    }
    return socket
}

private let easyHandleCloseSocket: curl_closesocket_callback = { accountPointer, socket in
    let result = Glibc.close(socket)
    if let accountPointer {
        let account = Unmanaged<SocketAccount>.fromOpaque(accountPointer).takeUnretainedValue()
        account.tally.changed(account.endpoint, by: -1)
    }
    return result
}
