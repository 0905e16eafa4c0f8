internal import CNGHTTP2

/// Builds the `nghttp2_nv` array of a request without a String per header: every name and
/// value is copied into one byte buffer that is reused for every request of the connection,
/// and the array points into it. nghttp2 copies the pairs during `nghttp2_submit_request`
/// (no NO_COPY flags), so the pointers only need to live for that call.
struct H2RequestHeaders {
    private var bytes: [UInt8] = []
    private var spans: [(name: Int, nameCount: Int, value: Int, valueCount: Int)] = []
    private var pairs: [nghttp2_nv] = []
    /// `:authority` as sent: `host:port`, an IPv6 literal in brackets.
    private let authority: [UInt8]

    init(endpoint: APNsEndpoint) {
        let host = endpoint.host.utf8.contains(UInt8(ascii: ":")) && !endpoint.host.hasPrefix("[") ? "[\(endpoint.host)]" : endpoint.host
        authority = Array("\(host):\(endpoint.port)".utf8)
        bytes.reserveCapacity(1024)
        spans.reserveCapacity(16)
        pairs.reserveCapacity(16)
    }

    private static let method = Array(":method".utf8)
    private static let scheme = Array(":scheme".utf8)
    private static let https = Array("https".utf8)
    private static let authorityName = Array(":authority".utf8)
    private static let path = Array(":path".utf8)
    private static let contentType = Array("content-type".utf8)
    private static let json = Array("application/json".utf8)
    private static let contentLength = Array("content-length".utf8)

    /// Calls `body` with the pairs of `request`: the pseudo-headers, `content-type` and
    /// `content-length` for a POST, then the request's own headers.
    mutating func withPairs<Result>(for request: HTTPRequest,
                                    _ body: (UnsafePointer<nghttp2_nv>, Int) -> Result) -> Result {
        bytes.removeAll(keepingCapacity: true)
        spans.removeAll(keepingCapacity: true)
        add(Self.method, request.method.rawValue.utf8)
        add(Self.scheme, Self.https)
        add(Self.authorityName, authority)
        add(Self.path, request.path.utf8)
        if request.method == .post {
            add(Self.contentType, Self.json)
            addLength(request.body.count)
        }
        for header in request.headers {
            add(header.name.utf8, header.value.utf8)
        }
        let spans = self.spans
        return bytes.withUnsafeMutableBufferPointer { buffer in
            let base = buffer.baseAddress!
            pairs.removeAll(keepingCapacity: true)
            for span in spans {
                pairs.append(nghttp2_nv(name: base + span.name, value: base + span.value,
                                        namelen: span.nameCount, valuelen: span.valueCount,
                                        flags: UInt8(NGHTTP2_NV_FLAG_NONE.rawValue)))
            }
            return pairs.withUnsafeBufferPointer { body($0.baseAddress!, $0.count) }
        }
    }

    private mutating func add(_ name: some Sequence<UInt8>, _ value: some Sequence<UInt8>) {
        let nameStart = bytes.count
        bytes.append(contentsOf: name)
        let valueStart = bytes.count
        bytes.append(contentsOf: value)
        spans.append((nameStart, valueStart - nameStart, valueStart, bytes.count - valueStart))
    }

    /// `content-length: <count>`, the digits written straight into the buffer.
    private mutating func addLength(_ count: Int) {
        let nameStart = bytes.count
        bytes.append(contentsOf: Self.contentLength)
        let valueStart = bytes.count
        var remaining = max(0, count)
        repeat {
            bytes.append(UInt8(ascii: "0") + UInt8(remaining % 10))
            remaining /= 10
        } while remaining > 0
        bytes[valueStart...].reverse()
        spans.append((nameStart, valueStart - nameStart, valueStart, bytes.count - valueStart))
    }
}
