import Foundation

/// Opening a non-blocking listening TCP socket.
enum ListeningSocket {
    /// Binds `host` (a numeric IPv4/IPv6 address or `localhost`) on `port` (0 picks a free port)
    /// and listens; returns the descriptor and the port actually bound.
    static func open(host: String, port: Int) throws(SimulatorError) -> (fd: Int32, port: Int) {
        guard (0...65_535).contains(port) else {
            throw .invalidConfiguration("port \(port) is outside 0…65535")
        }
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV
        var results: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &results)
        guard status == 0, let first = results else {
            throw .invalidConfiguration("cannot resolve listen address \(host): \(String(cString: gai_strerror(status)))")
        }
        defer { freeaddrinfo(results) }

        let fd = socket(first.pointee.ai_family, Int32(SOCK_STREAM.rawValue | SOCK_NONBLOCK.rawValue | SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw .system("socket", errno) }
        var one: Int32 = 1
        _ = setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        guard bind(fd, first.pointee.ai_addr, first.pointee.ai_addrlen) == 0 else {
            let error = errno
            close(fd)
            throw .bind(host: host, port: port, errno: error)
        }
        guard listen(fd, 1024) == 0 else {
            let error = errno
            close(fd)
            throw .system("listen", error)
        }
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let named = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard named == 0 else {
            let error = errno
            close(fd)
            throw .system("getsockname", error)
        }
        let family = Int32(storage.ss_family)
        let boundPort: UInt16 = withUnsafePointer(to: &storage) { pointer in
            if family == AF_INET6 {
                return pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { $0.pointee.sin6_port }
            }
            return pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_port }
        }
        return (fd, Int(UInt16(bigEndian: boundPort)))
    }
}
