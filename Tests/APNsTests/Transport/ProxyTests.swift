import Foundation
import ScorecastLogging
import Testing
@testable import APNs

/// The client through a real proxy (tinyproxy): an HTTP `CONNECT` tunnel with Basic
/// credentials, TLS and HTTP/2 inside it, credentials never shown.
@Suite("APNs through a proxy")
struct ProxyTests {
    private static let password = "pr0xy-s3cret-pass"

    @Test("requests go through the proxy's CONNECT tunnel with credentials, multiplexed over one tunnel")
    func throughTinyproxy() async throws {
        let proxy = try await TinyProxy(credentials: ("scorecast", Self.password))
        defer { proxy.stop() }
        let server = try await H2TestServer()
        defer { server.stop() }
        let transport = try HTTP2Transport(
            options: TestTransport.options(connections: 1, proxy: "http://scorecast:\(Self.password)@127.0.0.1:\(proxy.port)"),
            logger: TestLog.logger)
        let first = try await transport.perform(HTTPRequest(method: .get, endpoint: server.endpoint, path: "/first"), timeout: .seconds(10))
        #expect(first.status == 200)
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for index in 0..<50 {
                group.addTask {
                    try await transport.perform(HTTPRequest(method: .post, endpoint: server.endpoint, path: "/p/\(index)",
                                                            body: Array("\(index)".utf8)), timeout: .seconds(20)).status
                }
            }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(statuses.count == 50 && statuses.allSatisfy { $0 == 200 })
        // One tunnel, to the server's host and port, carried all 51 requests.
        #expect(proxy.connectTargets() == ["localhost:\(server.port)"])
        let stats = try await server.stats()
        #expect(stats["requests"] as? Int == 51)
        await transport.shutdown()
    }

    @Test("wrong proxy credentials: connectionFailed naming the proxy's refusal, never the password")
    func wrongCredentials() async throws {
        let proxy = try await TinyProxy(credentials: ("scorecast", Self.password))
        defer { proxy.stop() }
        let server = try await H2TestServer()
        defer { server.stop() }
        let transport = try HTTP2Transport(
            options: TestTransport.options(proxy: "http://scorecast:wrong-\(Self.password)@127.0.0.1:\(proxy.port)"),
            logger: TestLog.logger)
        let error = await #expect(throws: APNsClientError.self) {
            _ = try await transport.perform(HTTPRequest(method: .get, endpoint: server.endpoint, path: "/"), timeout: .seconds(10))
        }
        #expect(error?.code == .connectionFailed)
        #expect(error?.neverProcessed == true)
        #expect(error?.message.contains("the proxy refused the tunnel") == true, "\(error?.message ?? "")")
        #expect(error?.message.contains(Self.password) == false)
        await transport.shutdown()
    }

    @Test("the client logs where its proxy is without the password, and answers through it")
    func clientLogsProxyWithoutPassword() async throws {
        let proxy = try await TinyProxy(credentials: ("scorecast", Self.password))
        defer { proxy.stop() }
        let server = try await H2TestServer()
        defer { server.stop() }
        let sink = MemorySink()
        var configuration = APNsClientConfiguration(sendEndpoint: server.endpoint, managementEndpoint: server.endpoint)
        configuration.proxy = .url("http://scorecast:\(Self.password)@127.0.0.1:\(proxy.port)")
        let client = try APNsClient(configuration: configuration, logger: Logger(label: "apns", level: .trace, sink: sink))
        let response = try await client.listChannels(bundleID: "com.example.scores", credentials: try ProviderTokenTests.credentials())
        #expect(response.status == 200)
        #expect(proxy.connectTargets().count == 1)
        let lines = sink.lines
        #expect(lines.contains { $0.contains("http://scorecast:***@127.0.0.1:\(proxy.port)") })
        #expect(!lines.contains { $0.contains(Self.password) })
        #expect(!"\(configuration)".contains(Self.password))
        await client.shutdown()
    }

    @Test("proxy settings: what reaches libcurl, what is shown, what is refused")
    func settings() throws {
        #expect(APNsProxy.environment.curlValue == nil)
        #expect(APNsProxy.direct.curlValue == "")
        #expect(APNsProxy.url("http://u:p@proxy.internal:3128").curlValue == "http://u:p@proxy.internal:3128")
        #expect(APNsProxy.url("http://u:p@proxy.internal:3128").description == "http://u:***@proxy.internal:3128")
        #expect(APNsProxy.url("socks5h://proxy.internal").description == "socks5h://proxy.internal:1080")
        #expect(APNsProxy.url("https://proxy.internal").description == "https://proxy.internal:443")
        try APNsProxy.url("http://proxy.internal:3128").validate()
        for bad in ["proxy.internal:3128", "ftp://u:secret@proxy.internal", "http://", "http://u:secret@proxy.internal:99999",
                    "http://proxy.internal:3128/path?q=1"] {
            let error = #expect(throws: APNsClientError.self, "\(bad)") { try APNsProxy.url(bad).validate() }
            #expect(error?.code == .invalidConfiguration)
            #expect(error?.message.contains("secret") == false)
        }
    }
}
