import Foundation
import Testing
@testable import APNs

/// What the transport does with its connections over time: no RST_STREAM after complete
/// answers, PING on quiet connections, dropping a peer that stopped answering, the idle age
/// limit, the connect timeout and host-name verification.
@Suite("HTTP/2 connection lifecycle")
struct ConnectionLifecycleTests {
    private static func get(_ transport: HTTP2Transport, _ endpoint: APNsEndpoint, _ path: String,
                            timeout: Duration = .seconds(10)) async throws -> HTTPResponse {
        try await transport.perform(HTTPRequest(method: .get, endpoint: endpoint, path: path), timeout: timeout)
    }

    @Test("2,000 complete answers (with and without a body) over one connection: no RST_STREAM, no reconnect")
    func noResetAfterCompleteResponses() async throws {
        let server = try await H2TestServer()
        defer { server.stop() }
        let transport = try HTTP2Transport(options: TestTransport.options(connections: 1), logger: TestLog.logger)
        let first = try await Self.get(transport, server.endpoint, "/first")
        #expect(first.connectionsOpened == 1)
        let opened = try await withThrowingTaskGroup(of: Int.self) { group in
            for index in 0..<2000 {
                group.addTask {
                    // Half are answered with HEADERS alone (END_STREAM on HEADERS), like APNs' 200s.
                    let headers = index % 2 == 0 ? [HTTPHeader("x-test-body-bytes", "0"), HTTPHeader("x-test-no-content-length", "1")] : []
                    let response = try await transport.perform(HTTPRequest(method: .get, endpoint: server.endpoint,
                                                                           path: "/r/\(index)", headers: headers), timeout: .seconds(30))
                    #expect(response.status == 200)
                    return response.connectionsOpened
                }
            }
            return try await group.reduce(0, +)
        }
        #expect(opened == 0)
        let stats = try await server.stats()
        #expect(stats["resets_received"] as? Int == 0)
        // The load's connection and the one stats() opens.
        #expect(stats["connections"] as? Int == 2)
        await transport.shutdown()
    }

    @Test("a quiet connection is checked with PING and kept")
    func pingOnIdleConnection() async throws {
        let server = try await H2TestServer()
        defer { server.stop() }
        let transport = try HTTP2Transport(options: TestTransport.options(pingInterval: .milliseconds(150)), logger: TestLog.logger)
        #expect(try await Self.get(transport, server.endpoint, "/a").connectionsOpened == 1)
        try await Task.sleep(for: .milliseconds(1000))
        // Still the same connection: every PING was answered.
        #expect(try await Self.get(transport, server.endpoint, "/b").connectionsOpened == 0)
        let pings = try #require(try await server.stats()["pings"] as? Int)
        #expect(pings >= 2)
        await transport.shutdown()
    }

    @Test("a peer that stops answering (PING unanswered) is dropped long before the deadline")
    func unansweredPing() async throws {
        let server = try await H2TestServer()
        defer { server.stop() }
        // Margins for a busy machine: the live server must answer its PINGs within 1.5 s.
        let transport = try HTTP2Transport(options: TestTransport.options(pingInterval: .milliseconds(400), pingTimeout: .milliseconds(1500)),
                                           logger: TestLog.logger)
        _ = try await Self.get(transport, server.endpoint, "/warm")
        server.pause()
        defer { server.resume() }
        let started = ContinuousClock.now
        let error = await #expect(throws: APNsClientError.self) {
            _ = try await Self.get(transport, server.endpoint, "/frozen", timeout: .seconds(20))
        }
        #expect(error?.code == .connectionLost)
        #expect(error?.message.contains("PING") == true)
        #expect(ContinuousClock.now - started < .seconds(15))
        await transport.shutdown()
    }

    @Test("a connection idle past its age limit is closed; the next request opens a new one")
    func idleAgeLimit() async throws {
        let server = try await H2TestServer()
        defer { server.stop() }
        // An hour's limit on a clock the test moves: no wall-clock margin to miss on a busy machine.
        let clock = AdvancingClock()
        let transport = try HTTP2Transport(options: TestTransport.options(idleMaxAgeSeconds: 3600, clock: clock.transportClock),
                                           logger: TestLog.logger)
        #expect(try await Self.get(transport, server.endpoint, "/a").connectionsOpened == 1)
        // Half the limit: however long the loaded machine takes to dispatch /b, it is far
        // from the limit (a 1 s gap was itself a wall-clock margin).
        clock.advance(by: .seconds(1800))
        #expect(try await Self.get(transport, server.endpoint, "/b").connectionsOpened == 0)
        clock.advance(by: .seconds(3601))
        #expect(try await Self.get(transport, server.endpoint, "/c").connectionsOpened == 1)
        await transport.shutdown()
    }

    @Test("a server that accepts TCP but never answers TLS: timeout after the connect timeout, never processed")
    func connectTimeout() async throws {
        let listener = try SilentListener()
        defer { listener.close() }
        let transport = try HTTP2Transport(options: TestTransport.options(connectTimeout: .milliseconds(300)), logger: TestLog.logger)
        let started = ContinuousClock.now
        let error = await #expect(throws: APNsClientError.self) {
            _ = try await Self.get(transport, APNsEndpoint(host: "127.0.0.1", port: listener.port), "/", timeout: .seconds(20))
        }
        let elapsed = ContinuousClock.now - started
        #expect(error?.code == .timeout)
        #expect(error?.neverProcessed == true)
        // The connect timeout ended it, not the request's 20 s deadline: said by the message, not
        // by an upper bound on elapsed time (a loaded CI machine took 14.8 s).
        #expect(error?.message.contains("connect timeout") == true, "\(error?.message ?? "")")
        #expect(elapsed >= .milliseconds(280))
        await transport.shutdown()
    }

    @Test("a certificate issued for another name is refused even when its CA is trusted")
    func hostNameVerified() async throws {
        let server = try await H2TestServer(.init(certificateNames: ["push.example.net"]))
        defer { server.stop() }
        let transport = try HTTP2Transport(options: TestTransport.options(), logger: TestLog.logger)
        for host in ["localhost", "127.0.0.1"] {
            let error = await #expect(throws: APNsClientError.self) {
                _ = try await Self.get(transport, APNsEndpoint(host: host, port: server.port, caFile: server.caFile), "/", timeout: .seconds(5))
            }
            #expect(error?.code == .tlsFailure, "\(host)")
            #expect(error?.message.contains("mismatch") == true, "\(error?.message ?? "")")
        }
        await transport.shutdown()
    }

    @Test("without a CA file the system trust store decides: a self-signed server is refused")
    func systemTrustStore() async throws {
        let server = try await H2TestServer()
        defer { server.stop() }
        let transport = try HTTP2Transport(options: TestTransport.options(), logger: TestLog.logger)
        let error = await #expect(throws: APNsClientError.self) {
            _ = try await Self.get(transport, APNsEndpoint(host: "localhost", port: server.port), "/", timeout: .seconds(5))
        }
        #expect(error?.code == .tlsFailure)
        #expect(error?.message.contains("certificate") == true, "\(error?.message ?? "")")
        await transport.shutdown()
    }

    @Test("a missing CA file is a TLS failure naming the file")
    func missingCAFile() async throws {
        let transport = try HTTP2Transport(options: TestTransport.options(), logger: TestLog.logger)
        let error = await #expect(throws: APNsClientError.self) {
            _ = try await Self.get(transport, APNsEndpoint(host: "127.0.0.1", port: 1, caFile: "/nonexistent/ca.pem"), "/",
                                   timeout: .seconds(5))
        }
        #expect(error?.code == .tlsFailure)
        #expect(error?.message.contains("/nonexistent/ca.pem") == true)
        await transport.shutdown()
    }
}

/// A loopback TCP socket that listens and never accepts: connections complete in the kernel's
/// backlog, and no TLS answer ever comes.
final class SilentListener: @unchecked Sendable {
    // @unchecked: set once in init; close() is called once by the test.
    let port: Int
    private let fd: Int32

    init() throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw TestServerError("socket() failed") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let fd = self.fd
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, length) == 0 && listen(fd, 16) == 0 && getsockname(fd, $0, &length) == 0
            }
        }
        guard bound else {
            Foundation.close(fd)
            throw TestServerError("bind/listen failed")
        }
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    func close() {
        Foundation.close(fd)
    }
}

@Suite("HTTP/2 stream ids")
struct StreamIDExhaustionTests {
    @Test("a connection that runs out of stream ids is retired; later requests go to a fresh one, none fails")
    func streamIDsRunOut() async throws {
        let server = try await H2TestServer()
        defer { server.stop() }
        var options = TestTransport.options(connections: 1, streams: 4)
        // Room for ten streams per connection (ids up to 2³¹ − 1).
        options.firstStreamID = Int32.max - 20
        let transport = try HTTP2Transport(options: options, logger: TestLog.logger)
        let opened = try await withThrowingTaskGroup(of: Int.self) { group in
            for index in 0..<35 {
                group.addTask {
                    let response = try await transport.perform(HTTPRequest(method: .get, endpoint: server.endpoint, path: "/ids/\(index)"),
                                                                timeout: .seconds(20))
                    #expect(response.status == 200)
                    return response.connectionsOpened
                }
            }
            return try await group.reduce(0, +)
        }
        // 35 requests, ten per connection.
        #expect(opened == 4)
        let stats = try await server.stats()
        #expect(stats["requests"] as? Int == 35)
        #expect(stats["connections"] as? Int == 5)
        await transport.shutdown()
    }
}
