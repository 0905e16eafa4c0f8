import APNsSimulator
import Foundation
import Testing

/// The admin API has no authentication: it listens on loopback whatever `--host` says, and
/// elsewhere only when `--admin-host` says so.
@Suite struct AdminBindingTests {
    /// Whether a TCP connection to `host:port` is accepted.
    private func accepts(_ host: String, _ port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        inet_pton(AF_INET, host, &address.sin_addr)
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        } == 0
    }

    /// This machine's IPv4 addresses other than loopback (its network interfaces).
    private func interfaceAddresses() -> [String] {
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0, let first = list else { return [] }
        defer { freeifaddrs(list) }
        var found: [String] = []
        for entry in sequence(first: first, next: { $0.pointee.ifa_next }) {
            guard let address = entry.pointee.ifa_addr, Int32(address.pointee.sa_family) == AF_INET else { continue }
            var text = [CChar](repeating: 0, count: Int(INET_ADDRSTRLEN))
            address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { inet4 in
                var raw = inet4.pointee.sin_addr
                _ = inet_ntop(AF_INET, &raw, &text, socklen_t(text.count))
            }
            let name = String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if !name.hasPrefix("127.") { found.append(name) }
        }
        return found
    }

    @Test func onEveryInterfaceTheAdminAPIStillListensOnLoopbackOnly() async throws {
        try await SimulatorFixture.with(configure: { $0.host = "0.0.0.0" }) { fixture in
            let endpoints = fixture.endpoints
            // 127.0.0.2 reaches sockets bound to 0.0.0.0, not those bound to 127.0.0.1.
            let elsewhere = ["127.0.0.2"] + interfaceAddresses()
            for address in elsewhere {
                #expect(accepts(address, endpoints.sendPort), "the send port is on \(address)")
                #expect(!accepts(address, endpoints.adminPort), "the admin API must refuse \(address)")
            }
            #expect(accepts("127.0.0.1", endpoints.adminPort))
            let listed = try await fixture.admin("GET", "/channels")
            #expect(listed.status == 200)
        }
    }

    @Test func adminHostOpensItOnPurpose() async throws {
        try await SimulatorFixture.with(configure: { $0.host = "0.0.0.0"; $0.adminHost = "0.0.0.0" }) { fixture in
            #expect(accepts("127.0.0.2", fixture.endpoints.adminPort))
        }
        let parsed = try SimulatorCommand.parse(arguments: ["--host", "0.0.0.0", "--admin-host", "10.1.2.3"])
        #expect(parsed.host == "0.0.0.0" && parsed.adminHost == "10.1.2.3")
        let defaulted = try SimulatorCommand.parse(arguments: ["--host", "0.0.0.0"])
        #expect(defaulted.adminHost == "127.0.0.1")
    }
}
