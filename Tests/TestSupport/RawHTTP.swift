import Foundation

/// A bare TCP client for what `TestClient` cannot express: malformed requests, bodies that lie
/// about their length, pauses between bytes. Socket calls block, so each exchange runs on a
/// thread of its own, never on the concurrency pool.
public enum RawHTTP {
    public struct Exchange: Sendable {
        /// Every byte the server sent.
        public let received: [UInt8]
        /// Whether the server closed the connection (as opposed to our read timing out).
        public let closedByServer: Bool
        /// Seconds from connect to close (or timeout).
        public let elapsed: Double
        /// How many of the parts were sent whole before the server closed (all of them unless it
        /// cut the client off while it was still sending).
        public let partsSent: Int

        public var text: String { String(decoding: received, as: UTF8.self) }

        /// The status code of the first response, if any.
        public var status: Int? {
            guard text.hasPrefix("HTTP/1.") else { return nil }
            let parts = text.split(separator: " ", maxSplits: 2)
            return parts.count > 1 ? Int(parts[1]) : nil
        }

        /// The first response's header block and body.
        public var headersAndBody: (headers: [String: String], body: [UInt8]) {
            let separator: [UInt8] = Array("\r\n\r\n".utf8)
            guard let end = received.indices.first(where: { Array(received[$0..<min($0 + 4, received.count)]) == separator }) else {
                return ([:], [])
            }
            var headers: [String: String] = [:]
            for line in String(decoding: received[..<end], as: UTF8.self).split(separator: "\r\n").dropFirst() {
                let pair = line.split(separator: ":", maxSplits: 1)
                if pair.count == 2 { headers[pair[0].lowercased()] = pair[1].trimmingCharacters(in: .whitespaces) }
            }
            return (headers, Array(received[(end + 4)...]))
        }
    }

    /// Connects to 127.0.0.1:`port`, sends each part (pausing `pause` seconds between parts),
    /// then reads until the server closes or `readTimeout` seconds pass without data.
    /// `source` binds the client's end to that IPv4 address first (127.0.0.2 is "another
    /// client" on loopback).
    public static func exchange(
        host: String = "127.0.0.1", source: String? = nil, port: Int, parts: [[UInt8]], pause: Double = 0, readTimeout: Double = 5
    ) async throws -> Exchange {
        try await withCheckedThrowingContinuation { continuation in
            let thread = Thread {
                continuation.resume(with: Result {
                    try run(host: host, source: source, port: port, parts: parts, pause: pause, readTimeout: readTimeout)
                })
            }
            thread.start()
        }
    }

    /// Convenience: one string sent at once.
    public static func exchange(port: Int, _ request: String, readTimeout: Double = 5) async throws -> Exchange {
        try await exchange(port: port, parts: [Array(request.utf8)], readTimeout: readTimeout)
    }

    public struct SocketError: Error, CustomStringConvertible {
        public let description: String
    }

    private static func run(host: String, source: String?, port: Int, parts: [[UInt8]], pause: Double, readTimeout: Double) throws -> Exchange {
        let start = Date()
        let ipv6 = host.contains(":")
        let fd = socket(ipv6 ? AF_INET6 : AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw SocketError(description: "socket() failed: errno \(errno)") }
        defer { close(fd) }
        if let source { try bind(fd, to: source) }
        let connected: Int32
        if ipv6 {
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_port = in_port_t(UInt16(port).bigEndian)
            inet_pton(AF_INET6, host, &address.sin6_addr)
            connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size)) }
            }
        } else {
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = in_port_t(UInt16(port).bigEndian)
            inet_pton(AF_INET, host, &address.sin_addr)
            connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
        }
        guard connected == 0 else { throw SocketError(description: "connect() failed: errno \(errno)") }
        var timeout = timeval(tv_sec: Int(readTimeout), tv_usec: Int((readTimeout - Double(Int(readTimeout))) * 1_000_000))
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var partsSent = 0
        sending: for (index, part) in parts.enumerated() {
            if index > 0, pause > 0 { Thread.sleep(forTimeInterval: pause) }
            var offset = 0
            while offset < part.count {
                let sent = part[offset...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                if sent <= 0 { break sending }  // the server may close early (e.g. after a 413)
                offset += sent
            }
            partsSent += 1
        }
        let (received, closed) = readUntilClosed(fd)
        return Exchange(received: received, closedByServer: closed, elapsed: Date().timeIntervalSince(start), partsSent: partsSent)
    }

    /// Reads `fd` until the server closes (`closed`) or its receive timeout passes without data.
    static func readUntilClosed(_ fd: Int32) -> (received: [UInt8], closed: Bool) {
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = recv(fd, &buffer, buffer.count, 0)
            if count > 0 {
                received.append(contentsOf: buffer[..<count])
            } else {
                return (received, count == 0 || errno == ECONNRESET)
            }
        }
    }

    /// Binds `fd` to the IPv4 address `source` (any port).
    static func bind(_ fd: Int32, to source: String) throws {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        inet_pton(AF_INET, source, &address.sin_addr)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0 else { throw SocketError(description: "bind(\(source)) failed: errno \(errno)") }
    }
}

/// A client socket the test holds open (bound to `source`, "another client" on loopback),
/// written and read when the test says: for many connections that stay open at once.
public final class OpenSocket: Sendable {
    private let descriptor: Int32

    /// Connects from `source` to 127.0.0.1:`port`.
    public init(source: String, port: Int) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw RawHTTP.SocketError(description: "socket() failed: errno \(errno)") }
        do {
            try RawHTTP.bind(fd, to: source)
        } catch {
            Glibc.close(fd)
            throw error
        }
        var remote = sockaddr_in()
        remote.sin_family = sa_family_t(AF_INET)
        remote.sin_port = in_port_t(UInt16(port).bigEndian)
        inet_pton(AF_INET, "127.0.0.1", &remote.sin_addr)
        let connected = withUnsafePointer(to: &remote) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            Glibc.close(fd)
            throw RawHTTP.SocketError(description: "connect() from \(source) failed: errno \(errno)")
        }
        descriptor = fd
    }

    /// Sends `bytes`; a connection the server already ended is ignored.
    public func send(_ bytes: [UInt8]) {
        _ = bytes.withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }

    /// Reads, on a thread of its own, until the server closes or `timeout` seconds pass
    /// without data.
    public func readUntilClosed(timeout: Double) async -> RawHTTP.Exchange {
        let fd = descriptor
        let start = Date()
        return await withCheckedContinuation { continuation in
            Thread {
                var wait = timeval(tv_sec: Int(timeout), tv_usec: 0)
                setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &wait, socklen_t(MemoryLayout<timeval>.size))
                let (received, closed) = RawHTTP.readUntilClosed(fd)
                continuation.resume(returning: RawHTTP.Exchange(
                    received: received, closedByServer: closed, elapsed: Date().timeIntervalSince(start), partsSent: 1))
            }.start()
        }
    }

    /// Closes the socket.
    public func close() { Glibc.close(descriptor) }
}
