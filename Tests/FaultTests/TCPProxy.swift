import Foundation
import Synchronization
import TestSupport

#if canImport(Glibc)
import Glibc
#endif

/// A TCP proxy on 127.0.0.1 forwarding to a local port the test may change: the one stable
/// address a managed Postgres gives its clients while the server behind it fails over.
/// Repointing drops the connections open so far, as such an endpoint does when it switches.
///
/// Blocking sockets, each on a thread of its own (accepting, and one per direction of each
/// connection), so that nothing here blocks Swift's cooperative pool.
final class TCPProxy: Sendable {
    /// The port clients connect to.
    let port: Int
    private let listener: Int32
    private let state: Mutex<(target: Int, open: Set<Int32>, stopped: Bool)>

    /// Listens on a free port and forwards every connection to `target`.
    init(to target: Int) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw TestSupportError("socket() failed: errno \(errno)") }
        var address = Self.loopback(port: 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let listening = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 && listen(fd, 128) == 0
            }
        }
        guard listening else {
            close(fd)
            throw TestSupportError("the proxy could not listen: errno \(errno)")
        }
        self.listener = fd
        self.port = Int(UInt16(bigEndian: address.sin_port))
        self.state = Mutex((target, [], false))
        Thread.detachNewThread { [self] in acceptConnections() }
    }

    /// Forwards new connections to `target` from now on and drops those open.
    func repoint(to target: Int) {
        state.withLock { state in
            state.target = target
            for fd in state.open { shutdown(fd, Int32(SHUT_RDWR)) }
        }
    }

    /// Stops listening and drops every connection.
    func stop() {
        state.withLock { state in
            state.stopped = true
            for fd in state.open { shutdown(fd, Int32(SHUT_RDWR)) }
        }
        // Wakes the accepting thread, which then closes the listener.
        shutdown(listener, Int32(SHUT_RDWR))
    }

    private func acceptConnections() {
        defer { close(listener) }
        while true {
            let client = accept(listener, nil, nil)
            if client < 0 {
                if errno == EINTR || errno == ECONNABORTED { continue }
                return
            }
            let target = state.withLock { $0.target }
            let upstream = Self.connect(to: target)
            // The server behind is down: the client sees its connection closed, as with a dead endpoint.
            guard upstream >= 0 else {
                close(client)
                continue
            }
            let admitted = state.withLock { state in
                guard !state.stopped else { return false }
                state.open.formUnion([client, upstream])
                return true
            }
            guard admitted else {
                close(client)
                close(upstream)
                return
            }
            let directions = Directions()
            for (from, to) in [(client, upstream), (upstream, client)] {
                Thread.detachNewThread { [self] in
                    pump(from: from, to: to)
                    // The second direction to end closes both (only then can no thread use them).
                    if directions.running.subtract(1, ordering: .acquiringAndReleasing).newValue == 0 { release(client, upstream) }
                }
            }
        }
    }

    /// Copies `from` to `to` until either side ends, then ends both.
    private func pump(from: Int32, to: Int32) {
        var buffer = [UInt8](repeating: 0, count: 16_384)
        copying: while true {
            let count = buffer.withUnsafeMutableBytes { read(from, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            var sent = 0
            while sent < count {
                // MSG_NOSIGNAL: a peer gone must not raise SIGPIPE in the test process.
                let written = buffer.withUnsafeBytes { send(to, $0.baseAddress! + sent, count - sent, Int32(MSG_NOSIGNAL)) }
                if written < 0 && errno == EINTR { continue }
                guard written > 0 else { break copying }
                sent += written
            }
        }
        shutdown(from, Int32(SHUT_RDWR))
        shutdown(to, Int32(SHUT_RDWR))
    }

    private func release(_ fds: Int32...) {
        state.withLock { state in for fd in fds { state.open.remove(fd) } }
        for fd in fds { close(fd) }
    }

    private static func connect(to port: Int) -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return -1 }
        var address = loopback(port: port)
        let connected = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
        guard connected else {
            close(fd)
            return -1
        }
        return fd
    }

    /// How many directions of one connection still copy.
    private final class Directions: Sendable {
        let running = Atomic<Int>(2)
    }

    private static func loopback(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        return address
    }
}
