import Testing
@testable import APNs

@Suite("client configuration")
struct ConfigurationTests {
    @Test("Apple's hosts per environment")
    func appleHosts() throws {
        let sandbox = APNsClientConfiguration(environment: .sandbox)
        #expect(sandbox.sendEndpoint == APNsEndpoint(host: "api.sandbox.push.apple.com", port: 443))
        #expect(sandbox.managementEndpoint == APNsEndpoint(host: "api-manage-broadcast.sandbox.push.apple.com", port: 2195))
        let production = APNsClientConfiguration(environment: .production)
        #expect(production.managementEndpoint == .productionManagement)
        #expect(production.sendEndpoint == .productionSend)
        try sandbox.validate()
    }

    @Test("out-of-range settings are refused, naming the setting")
    func invalidSettings() {
        var base = APNsClientConfiguration(environment: .sandbox)
        base.sendEndpoint = APNsEndpoint(host: "127.0.0.1", port: 8443, caFile: "/tmp/ca.pem")
        let mutations: [(String, (inout APNsClientConfiguration) -> Void)] = [
            ("maxConnectionsPerHost", { $0.maxConnectionsPerHost = 0 }),
            ("maxConcurrentStreams", { $0.maxConcurrentStreams = 5000 }),
            ("requestTimeout", { $0.requestTimeout = .zero }),
            ("tokenRenewalAge", { $0.tokenRenewalAge = .seconds(10 * 60) }),
            ("tokenRenewalAge", { $0.tokenRenewalAge = .seconds(60 * 60) }),
            ("maxConnectionRetries", { $0.maxConnectionRetries = -1 }),
            ("port", { $0.managementEndpoint.port = 70000 }),
            ("host", { $0.sendEndpoint.host = "bad host/" }),
        ]
        for (name, mutate) in mutations {
            var configuration = base
            mutate(&configuration)
            let error = #expect(throws: APNsClientError.self) { try configuration.validate() }
            #expect(error?.code == .invalidConfiguration)
            #expect(error?.message.contains(name) == true, "\(name): \(error?.message ?? "")")
        }
    }

    @Test("a client refuses a bad configuration instead of starting")
    func clientRefusesBadConfiguration() {
        var configuration = APNsClientConfiguration(environment: .sandbox)
        configuration.maxConcurrentStreams = 0
        #expect(throws: APNsClientError.self) { _ = try APNsClient(configuration: configuration, logger: TestLog.logger) }
    }

    @Test("IPv6 hosts are bracketed in URLs")
    func ipv6() {
        #expect(APNsEndpoint(host: "::1", port: 2195).baseURL == "https://[::1]:2195")
        #expect(APNsEndpoint(host: "localhost", port: 2195).baseURL == "https://localhost:2195")
    }
}
