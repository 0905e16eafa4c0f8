internal import CCurl
import Foundation
internal import CThreadName

/// The project's one HTTP client for plain request/answer exchanges (the CLI's `events send`,
/// the demo's replay, the simulator's admin API, the benchmark's feed): one libcurl easy handle
/// whose connection is kept between requests (HTTP/1.1 keep-alive, or HTTP/2 over TLS).
///
/// Blocking and confined to one thread at a time (not `Sendable`): a caller with threads of
/// its own (the benchmark's feed lanes) keeps one per thread; async callers use
/// ``perform(_:timeout:)``, which runs on a thread of its own, never on Swift's cooperative
/// pool. APNs' multiplexed HTTP/2 transport is the multi-interface counterpart in `APNs`.
public final class CurlHTTPConnection {
    private let raw: OpaquePointer
    private let errorBuffer: UnsafeMutablePointer<CChar>
    private let headerList = HeaderList()
    /// The list last given to `CURLOPT_HTTPHEADER`.
    private var linkedHeaders: UnsafeMutablePointer<curl_slist>?
    private var response: ResponseCollector
    /// What POSTFIELDS points at for an empty body (one byte, never read).
    nonisolated(unsafe) private static let emptyBody = UnsafeMutableRawPointer.allocate(byteCount: 1, alignment: 1)

    /// Creates a connection; `timeout` bounds every request (connect, send, answer).
    public init(timeout: Duration = .seconds(30), maxResponseBytes: Int = 16 << 20) throws(CurlHTTPError) {
        guard CurlGlobal.ensureInitialized(), let raw = curl_easy_init() else {
            throw CurlHTTPError("libcurl could not be initialised")
        }
        self.raw = raw
        response = ResponseCollector(maxBodyBytes: maxResponseBytes)
        errorBuffer = .allocate(capacity: Int(CURL_ERROR_SIZE))
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE))
        let (seconds, attoseconds) = timeout.components
        let milliseconds = max(1, Int(seconds) * 1000 + Int(attoseconds / 1_000_000_000_000_000))
        var ok = true
        func set(_ option: CURLoption, _ value: Int) { ok = ok && ccurl_easy_setopt_long(raw, option, value) == CURLE_OK }
        set(CURLOPT_TIMEOUT_MS, milliseconds)
        set(CURLOPT_CONNECTTIMEOUT_MS, milliseconds)
        // Signals are process-wide; libcurl must not use them (it may run on any thread).
        set(CURLOPT_NOSIGNAL, 1)
        set(CURLOPT_TCP_NODELAY, 1)
        set(CURLOPT_FOLLOWLOCATION, 0)
        // HTTP/2 when TLS offers it, HTTP/1.1 otherwise.
        set(CURLOPT_HTTP_VERSION, CURL_HTTP_VERSION_2TLS)
        ok = ok && ccurl_easy_setopt_pointer(raw, CURLOPT_ERRORBUFFER, errorBuffer) == CURLE_OK
        // Always a write callback: without one libcurl prints bodies to stdout.
        ok = ok && ccurl_easy_setopt_write_function(raw, CURLOPT_WRITEFUNCTION, connectionWriteCallback) == CURLE_OK
        ok = ok && ccurl_easy_setopt_write_function(raw, CURLOPT_HEADERFUNCTION, connectionHeaderCallback) == CURLE_OK
        let me = Unmanaged.passUnretained(self).toOpaque()
        ok = ok && ccurl_easy_setopt_pointer(raw, CURLOPT_WRITEDATA, me) == CURLE_OK
        ok = ok && ccurl_easy_setopt_pointer(raw, CURLOPT_HEADERDATA, me) == CURLE_OK
        guard ok else {
            curl_easy_cleanup(raw)
            errorBuffer.deallocate()
            throw CurlHTTPError("libcurl refused the connection's options")
        }
    }

    deinit {
        curl_easy_cleanup(raw)
        errorBuffer.deallocate()
    }

    /// Sends `request` and waits for the complete answer, whatever its status.
    /// - Throws: `CurlHTTPError` when no answer came (refused, timeout, broken, too large).
    public func perform(_ request: CurlHTTPRequest) throws(CurlHTTPError) -> CurlHTTPResponse {
        response.reset()
        errorBuffer[0] = 0
        guard ccurl_easy_setopt_string(raw, CURLOPT_URL, request.url) == CURLE_OK else {
            throw CurlHTTPError("libcurl refused the URL \(request.url)")
        }
        // An empty `Expect:` keeps libcurl from waiting for `100 Continue` before larger bodies.
        headerList.removeAll()
        headerList.append("Expect:")
        for header in request.headers { headerList.append(name: header.name, value: header.value) }
        let linked = headerList.link()
        if linked != linkedHeaders {
            guard ccurl_easy_setopt_slist(raw, CURLOPT_HTTPHEADER, linked) == CURLE_OK else {
                throw CurlHTTPError("libcurl refused the request headers")
            }
            linkedHeaders = linked
        }
        let sendsBody = request.method != "GET" && (request.method != "DELETE" || !request.body.isEmpty)
        let raw = self.raw
        let result: CURLcode = request.body.withUnsafeBytes { bytes in
            var ok: Bool
            if sendsBody {
                // POSTFIELDS does not copy: the bytes stay alive for the whole perform. Never a
                // null pointer (libcurl would then read the body from standard input).
                let base = bytes.baseAddress.map { UnsafeMutableRawPointer(mutating: $0) } ?? Self.emptyBody
                ok = ccurl_easy_setopt_off_t(raw, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(bytes.count)) == CURLE_OK
                    && ccurl_easy_setopt_pointer(raw, CURLOPT_POSTFIELDS, base) == CURLE_OK
            } else {
                ok = ccurl_easy_setopt_long(raw, CURLOPT_HTTPGET, 1) == CURLE_OK
            }
            let custom: String? = request.method == "GET" || request.method == "POST" ? nil : request.method
            ok = ok && ccurl_easy_setopt_string(raw, CURLOPT_CUSTOMREQUEST, custom) == CURLE_OK
            guard ok else { return CURLE_BAD_FUNCTION_ARGUMENT }
            return curl_easy_perform(raw)
        }
        guard result == CURLE_OK else {
            if response.tooLarge { throw CurlHTTPError("\(request.url) answered with more than \(response.maxBodyBytes) bytes") }
            let detail = String(cString: errorBuffer)
            throw CurlHTTPError("\(request.method) \(request.url): \(detail.isEmpty ? String(cString: curl_easy_strerror(result)) : detail)",
                                timedOut: result == CURLE_OPERATION_TIMEDOUT)
        }
        var status = 0
        _ = ccurl_easy_getinfo_long(raw, CURLINFO_RESPONSE_CODE, &status)
        var connects = 0
        _ = ccurl_easy_getinfo_long(raw, CURLINFO_NUM_CONNECTS, &connects)
        return CurlHTTPResponse(status: status, headers: response.headers, body: response.body, connectionsOpened: connects)
    }

    /// Sends `request` on a connection of its own, on a thread of its own.
    public static func perform(_ request: CurlHTTPRequest, timeout: Duration = .seconds(30)) async throws(CurlHTTPError) -> CurlHTTPResponse {
        let result: Result<CurlHTTPResponse, CurlHTTPError> = await withCheckedContinuation { continuation in
            let thread = Thread {
                _ = scorecast_name_this_thread("curl-http")  // for top -H, ps -L and perf
                do throws(CurlHTTPError) {
                    continuation.resume(returning: .success(try CurlHTTPConnection(timeout: timeout).perform(request)))
                } catch {
                    continuation.resume(returning: .failure(error))
                }
            }
            thread.start()
        }
        return try result.get()
    }

    fileprivate func receiveBody(_ bytes: UnsafeRawBufferPointer) -> Int { response.receiveBody(bytes) }

    fileprivate func receiveHeader(_ bytes: UnsafeRawBufferPointer) -> Int { response.receiveHeader(bytes) }
}

// libcurl calls these during curl_easy_perform, on the performing thread. They must not
// capture anything: the connection arrives through the user-data pointer.
private let connectionWriteCallback: curl_write_callback = { data, size, count, userData in
    guard let userData else { return 0 }
    let connection = Unmanaged<CurlHTTPConnection>.fromOpaque(userData).takeUnretainedValue()
    return connection.receiveBody(UnsafeRawBufferPointer(start: data, count: size * count))
}

private let connectionHeaderCallback: curl_write_callback = { data, size, count, userData in
    guard let userData else { return 0 }
    let connection = Unmanaged<CurlHTTPConnection>.fromOpaque(userData).takeUnretainedValue()
    return connection.receiveHeader(UnsafeRawBufferPointer(start: data, count: size * count))
}
