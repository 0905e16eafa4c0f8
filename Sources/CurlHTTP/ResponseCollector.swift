/// What libcurl's header and write callbacks hand over for one transfer: the headers of the
/// final response (a status line starts a fresh set, so 1xx and proxy answers are dropped) and
/// the body up to a size cap. Shared by `CurlHTTPConnection` and the APNs transport's handles.
public struct ResponseCollector: Sendable {
    /// Header names in lower case, values trimmed.
    public private(set) var headers: [String: String] = [:]
    public private(set) var body: [UInt8] = []
    /// The body passed the cap: the write callback refused it and libcurl aborted the transfer.
    public private(set) var tooLarge = false
    /// The largest body accepted.
    public let maxBodyBytes: Int

    public init(maxBodyBytes: Int) { self.maxBodyBytes = maxBodyBytes }

    /// Forgets the previous transfer; a body buffer larger than `keepingBodyCapacityUpTo` is released.
    public mutating func reset(keepingBodyCapacityUpTo limit: Int = .max) {
        headers.removeAll(keepingCapacity: true)
        body.removeAll(keepingCapacity: body.capacity <= limit)
        tooLarge = false
    }

    /// Appends body bytes; returns what libcurl must be told (0 aborts the transfer).
    public mutating func receiveBody(_ bytes: UnsafeRawBufferPointer) -> Int {
        guard body.count + bytes.count <= maxBodyBytes else {
            tooLarge = true
            return 0
        }
        body.append(contentsOf: bytes)
        return bytes.count
    }

    /// Records one header line (`name: value\r\n`). Parsed on bytes: for APNs this runs for
    /// every header of every response.
    public mutating func receiveHeader(_ bytes: UnsafeRawBufferPointer) -> Int {
        let count = bytes.count
        if count >= 5 && bytes[0] == UInt8(ascii: "H") && bytes[1] == UInt8(ascii: "T") && bytes[4] == UInt8(ascii: "/") {
            headers.removeAll(keepingCapacity: true)
            return count
        }
        guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")), colon > 0 else { return count }
        var start = colon + 1
        var end = count
        while start < end && (bytes[start] == 0x20 || bytes[start] == 0x09) { start += 1 }
        while end > start && (bytes[end - 1] == 0x0A || bytes[end - 1] == 0x0D || bytes[end - 1] == 0x20 || bytes[end - 1] == 0x09) { end -= 1 }
        let name = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[..<colon]), as: UTF8.self).lowercased()
        let value = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self)
        // A repeated field is one list, its values joined in order (RFC 9110, 5.3).
        headers[name] = headers[name].map { $0 + ", " + value } ?? value
        return count
    }
}
