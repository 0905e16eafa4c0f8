import Foundation

/// A blocking HTTP/1.1 keep-alive connection to a loopback port, one request at a time.
///
/// Confined to the thread that made it (not `Sendable`). Blocking socket calls are fine there:
/// the event poster runs its own threads, never Swift's cooperative pool.
final class HTTPConnection {
    private let fd: Int32
    private var buffer: [UInt8] = []

    /// Connects to `127.0.0.1:port`, with `timeoutSeconds` on every read and write.
    init(port: Int, timeoutSeconds: Int = 10) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw BenchError("socket(): \(String(cString: strerror(errno)))") }
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            let message = String(cString: strerror(errno))
            close(fd)
            throw BenchError("connect to 127.0.0.1:\(port): \(message)")
        }
    }

    deinit { close(fd) }

    /// Sends one request (all its bytes) and reads the whole response.
    func exchange(_ request: [UInt8]) throws -> (status: Int, body: [UInt8]) {
        var sent = 0
        while sent < request.count {
            let written = request.withUnsafeBytes { send(fd, $0.baseAddress! + sent, request.count - sent, Int32(MSG_NOSIGNAL)) }
            guard written > 0 else { throw BenchError("send: \(String(cString: strerror(errno)))") }
            sent += written
        }
        var headerEnd: Int?
        while headerEnd == nil {
            try fill()
            headerEnd = Self.find([13, 10, 13, 10], in: buffer)
        }
        guard let end = headerEnd else { throw BenchError("no response head") }
        let head = String(decoding: buffer[0..<end], as: UTF8.self)
        let lines = head.split(separator: "\r\n")
        guard let statusLine = lines.first, statusLine.hasPrefix("HTTP/1."), statusLine.count >= 12,
              let status = Int(statusLine.dropFirst(9).prefix(3)) else {
            throw BenchError("malformed status line: \(lines.first ?? "")")
        }
        var contentLength = 0
        var chunked = false
        for line in lines.dropFirst() {
            let lower = line.lowercased()
            if lower.hasPrefix("content-length:") {
                contentLength = Int(lower.dropFirst(15).trimmingCharacters(in: .whitespaces)) ?? 0
            } else if lower.hasPrefix("transfer-encoding:") && lower.contains("chunked") {
                chunked = true
            }
        }
        var body: [UInt8]
        if chunked {
            body = try readChunked(from: end + 4)
        } else {
            while buffer.count < end + 4 + contentLength { try fill() }
            body = Array(buffer[(end + 4)..<(end + 4 + contentLength)])
            buffer.removeFirst(end + 4 + contentLength)
        }
        return (status, body)
    }

    private func readChunked(from start: Int) throws -> [UInt8] {
        var body: [UInt8] = []
        var position = start
        while true {
            var lineEnd = Self.find([13, 10], in: buffer, from: position)
            while lineEnd == nil {
                try fill()
                lineEnd = Self.find([13, 10], in: buffer, from: position)
            }
            guard let sizeEnd = lineEnd,
                  let size = Int(String(decoding: buffer[position..<sizeEnd], as: UTF8.self).split(separator: ";").first ?? "", radix: 16) else {
                throw BenchError("malformed chunk size")
            }
            position = sizeEnd + 2
            while buffer.count < position + size + 2 { try fill() }
            body += buffer[position..<(position + size)]
            position += size + 2
            if size == 0 {
                buffer.removeFirst(min(position, buffer.count))
                return body
            }
        }
    }

    private func fill() throws {
        var chunk = [UInt8](repeating: 0, count: 16_384)
        let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        guard count > 0 else {
            throw BenchError(count == 0 ? "the server closed the connection" : "recv: \(String(cString: strerror(errno)))")
        }
        buffer += chunk[0..<count]
    }

    private static func find(_ needle: [UInt8], in haystack: [UInt8], from start: Int = 0) -> Int? {
        guard haystack.count >= needle.count + start else { return nil }
        var index = start
        while index <= haystack.count - needle.count {
            if haystack[index] == needle[0] && Array(haystack[index..<(index + needle.count)]) == needle { return index }
            index += 1
        }
        return nil
    }

    /// A request's bytes.
    static func request(method: String, path: String, port: Int, headers: [(String, String)] = [], body: [UInt8] = []) -> [UInt8] {
        var head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        head += "Content-Length: \(body.count)\r\n\r\n"
        return Array(head.utf8) + body
    }
}
