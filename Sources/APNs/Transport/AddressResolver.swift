import Foundation

/// One socket address (IPv4 or IPv6) as `connect(2)` takes it.
struct SocketAddress: Sendable {
    let family: Int32
    let storage: sockaddr_storage
    let length: socklen_t

    /// Calls `body` with the address as a `sockaddr` pointer.
    func withSockaddr<Result>(_ body: (UnsafePointer<sockaddr>, socklen_t) -> Result) -> Result {
        withUnsafePointer(to: storage) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, length) }
        }
    }
}

/// The outcome of resolving one connection's host, handed back to the loop thread.
struct Resolution: Sendable {
    let connectionID: UInt64
    let result: Result<[SocketAddress], ResolutionError>
}

/// Why a host name did not resolve (`gai_strerror` text).
struct ResolutionError: Error, Sendable {
    let detail: String
}

/// Turns a host name into addresses. `getaddrinfo` blocks (DNS), so names are resolved on a
/// short-lived thread of their own, never on the loop thread or Swift's cooperative pool;
/// numeric addresses are converted at once.
enum AddressResolver {
    /// Resolves `host:port` now if `host` is an address literal; otherwise `nil`.
    static func numeric(host: String, port: Int) -> [SocketAddress]? {
        let bare = HostName.bare(host)
        guard HostName.isIPAddress(bare) else { return nil }
        return try? lookUp(host: bare, port: port, flags: AI_NUMERICHOST).get()
    }

    /// Resolves `host:port` on a new thread and passes the outcome to `deliver` there.
    static func resolveInBackground(host: String, port: Int, connectionID: UInt64,
                                    deliver: @escaping @Sendable (Resolution) -> Void) {
        let bare = HostName.bare(host)
        let thread = Thread {
            deliver(Resolution(connectionID: connectionID, result: lookUp(host: bare, port: port, flags: 0)))
        }
        thread.name = "apns-resolve"
        thread.start()
    }

    /// `getaddrinfo` for TCP; blocking.
    static func lookUp(host: String, port: Int, flags: Int32) -> Result<[SocketAddress], ResolutionError> {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = flags | AI_NUMERICSERV
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0 else {
            return .failure(ResolutionError(detail: String(cString: gai_strerror(status))))
        }
        defer { freeaddrinfo(list) }
        var addresses: [SocketAddress] = []
        var cursor = list
        while let entry = cursor {
            if let address = entry.pointee.ai_addr, entry.pointee.ai_addrlen <= MemoryLayout<sockaddr_storage>.size {
                var storage = sockaddr_storage()
                withUnsafeMutableBytes(of: &storage) { target in
                    target.copyMemory(from: UnsafeRawBufferPointer(start: address, count: Int(entry.pointee.ai_addrlen)))
                }
                addresses.append(SocketAddress(family: entry.pointee.ai_family, storage: storage, length: entry.pointee.ai_addrlen))
            }
            cursor = entry.pointee.ai_next
        }
        guard !addresses.isEmpty else { return .failure(ResolutionError(detail: "no address")) }
        return .success(addresses)
    }
}
