import ScorecastCrypto
import JSON
import ScorecastLogging
import Foundation
import ScorecastCore
import Testing
@testable import APNs

/// The whole client (token, builder, transport) against a real HTTP/2 TLS server that echoes
/// what it received: what goes on the wire, token renewal, a 503 storm.
@Suite("APNs client over HTTP/2 (echo server)")
struct APNsClientH2Tests {
    static let bundleID = "com.example.scores"

    private func client(_ server: H2TestServer, connections: Int = 2, tokens: TokenCache? = nil) throws -> APNsClient {
        var configuration = APNsClientConfiguration(sendEndpoint: server.endpoint, managementEndpoint: server.endpoint)
        configuration.maxConnectionsPerHost = connections
        configuration.requestTimeout = .seconds(10)
        return try APNsClient(configuration: configuration, logger: TestLog.logger, tokens: tokens)
    }

    private func echoed(_ response: APNsResponse) throws -> (method: String, path: String, headers: [String: String], body: String) {
        let object = try #require(try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
        return (try #require(object["method"] as? String), try #require(object["path"] as? String),
                try #require(object["headers"] as? [String: String]), try #require(object["body"] as? String))
    }

    @Test("every operation goes out as apns.md describes it, signed with a verifiable token")
    func operationsOnTheWire() async throws {
        let server = try await H2TestServer()
        defer { server.stop() }
        let client = try client(server)
        let credentials = try ProviderTokenTests.credentials()
        let requestID = UUID()

        let created = try await client.createChannel(bundleID: Self.bundleID, policy: .noMessageStored,
                                                     credentials: credentials, requestID: requestID)
        #expect(created.status == 201)
        let channelID = try #require(created.channelID)
        #expect(created.requestID == requestID.uuidString.lowercased())
        let create = try echoed(created)
        #expect(create.method == "POST" && create.path == "/1/apps/\(Self.bundleID)/channels")
        #expect(try JSONParser().parse(create.body) == ["message-storage-policy": 0, "push-type": "LiveActivity"])
        let authorization = try #require(create.headers["authorization"])
        #expect(authorization.hasPrefix("bearer "))
        #expect(JWS.verifyES256(try JWS.parse(String(authorization.dropFirst(7))), key: credentials.privateKey.publicKey))

        let read = try echoed(try await client.readChannel(bundleID: Self.bundleID, channelID: channelID, credentials: credentials))
        #expect(read.method == "GET" && read.path == "/1/apps/\(Self.bundleID)/channels")
        #expect(read.headers["apns-channel-id"] == channelID)

        let list = try echoed(try await client.listChannels(bundleID: Self.bundleID, credentials: credentials))
        #expect(list.method == "GET" && list.path == "/1/apps/\(Self.bundleID)/all-channels")

        let payload = LiveActivityPayload(timestamp: 1_764_453_600, event: .update, contentState: ["homeScore": 2, "awayScore": 1])
        let broadcastResponse = try await client.sendBroadcast(
            try Broadcast(bundleID: Self.bundleID, channelID: channelID, priority: .immediate, expiration: 0, payload: payload),
            credentials: credentials)
        let broadcast = try echoed(broadcastResponse)
        #expect(broadcast.method == "POST" && broadcast.path == "/4/broadcasts/apps/\(Self.bundleID)")
        #expect(broadcast.headers["apns-channel-id"] == channelID)
        #expect(broadcast.headers["apns-push-type"] == "liveactivity")
        #expect(broadcast.headers["apns-priority"] == "10")
        #expect(broadcast.headers["apns-expiration"] == "0")
        #expect(broadcast.headers["apns-topic"] == nil)
        #expect(try JSONParser().parse(broadcast.body)["aps"]?["content-state"] == ["homeScore": 2, "awayScore": 1])
        // One token for every request of the team.
        #expect(broadcast.headers["authorization"] == authorization)
        #expect(broadcastResponse.latency > .zero)

        let token = String(repeating: "0a", count: 32)
        let device = try echoed(try await client.sendToDevice(DevicePush(
            token: token, topic: Self.bundleID + ".push-type.liveactivity", pushType: .liveActivity,
            priority: .opportunistic, payload: Array(#"{"aps":{"event":"start"}}"#.utf8)), credentials: credentials))
        #expect(device.method == "POST" && device.path == "/3/device/\(token)")
        #expect(device.headers["apns-topic"] == Self.bundleID + ".push-type.liveactivity")
        #expect(device.headers["apns-priority"] == "5")

        let deleted = try echoed(try await client.deleteChannel(bundleID: Self.bundleID, channelID: channelID, credentials: credentials))
        #expect(deleted.method == "DELETE" && deleted.headers["apns-channel-id"] == channelID)
        await client.shutdown()
    }

    @Test("a request that breaks a rule is refused before anything is sent")
    func refusedBeforeSending() async throws {
        let server = try await H2TestServer()
        defer { server.stop() }
        let client = try client(server)
        let credentials = try ProviderTokenTests.credentials()
        let error = await #expect(throws: APNsClientError.self) {
            _ = try await client.sendBroadcast(Broadcast(bundleID: Self.bundleID, channelID: "abc", priority: .immediate,
                                                         expiration: 0, payload: [UInt8](repeating: 0x20, count: 5121)),
                                               credentials: credentials)
        }
        #expect(error?.code == .invalidRequest)
        #expect(error?.outcome == .requestMalformed)
        #expect(try await server.stats()["requests"] as? Int == 0)
        await client.shutdown()
    }

    @Test("403 ExpiredProviderToken: the token is renewed once and the request sent again")
    func renewsExpiredToken() async throws {
        let server = try await H2TestServer(.init(expireFirstToken: true))
        defer { server.stop() }
        let client = try client(server)
        let credentials = try ProviderTokenTests.credentials()
        let response = try await client.listChannels(bundleID: Self.bundleID, credentials: credentials)
        #expect(response.status == 200)
        // Later requests use the renewed token straight away.
        let again = try await client.listChannels(bundleID: Self.bundleID, credentials: credentials)
        #expect(again.status == 200)
        let stats = try await server.stats()
        #expect(stats["requests"] as? Int == 3)
        #expect((stats["authorizations"] as? [String])?.count == 2)
        await client.shutdown()
    }

    @Test("a token that stays expired is retried only once, and the 403 is returned")
    func retriesOnlyOnce() async throws {
        let server = try await H2TestServer(.init(alwaysExpired: true))
        defer { server.stop() }
        let client = try client(server)
        let response = try await client.listChannels(bundleID: Self.bundleID, credentials: try ProviderTokenTests.credentials())
        #expect(response.status == 403)
        #expect(response.reason == .expiredProviderToken)
        #expect(response.outcome == .renewTokenAndRetry)
        #expect(try await server.stats()["requests"] as? Int == 2)
        await client.shutdown()
    }

    @Test("a 503 storm: every request is answered, classified retry-with-backoff, and service resumes")
    func serviceUnavailableStorm() async throws {
        let server = try await H2TestServer(.init(failFirst: 150))
        defer { server.stop() }
        let client = try client(server, connections: 1)
        let credentials = try ProviderTokenTests.credentials()
        let responses = try await withThrowingTaskGroup(of: APNsResponse.self) { group in
            for index in 0..<200 {
                group.addTask {
                    try await client.sendBroadcast(Broadcast(bundleID: Self.bundleID, channelID: "c\(index)", priority: .opportunistic,
                                                             expiration: 0, payload: Array("{}".utf8)), credentials: credentials)
                }
            }
            return try await group.reduce(into: [APNsResponse]()) { $0.append($1) }
        }
        let failed = responses.filter { $0.status == 503 }
        #expect(failed.count == 150)
        #expect(failed.allSatisfy { $0.reason == .serviceUnavailable && $0.outcome == .retryWithBackoff && $0.wantsFreshConnection })
        #expect(responses.filter { $0.status == 200 }.count == 50)
        await client.shutdown()
    }
}

@Suite("secrets")
struct SecretsTests {
    @Test("no log line and no error ever contains the provider token")
    func tokenNeverLogged() async throws {
        let server = try await H2TestServer(.init(expireFirstToken: true, failFirst: 3))
        defer { server.stop() }
        let sink = MemorySink()
        let logger = Logger(label: "apns", level: .trace, sink: sink)
        var configuration = APNsClientConfiguration(sendEndpoint: server.endpoint, managementEndpoint: server.endpoint)
        // Far above the bound: this test is about secrets, and a loaded machine once took 5 s
        // for a first request and its token renewal.
        configuration.requestTimeout = .seconds(60)
        let client = try APNsClient(configuration: configuration, logger: logger)
        let credentials = try ProviderTokenTests.credentials()
        var texts: [String] = []
        for _ in 0..<6 {
            let response = try await client.sendBroadcast(Broadcast(bundleID: "com.example.scores", channelID: "YWJj", priority: .immediate,
                                                                    expiration: 0, payload: Array("{}".utf8), requestID: nil),
                                                          credentials: credentials)
            texts.append(String(describing: response))
        }
        // A transport failure's description, too.
        let silent = try await H2TestServer(.init(silent: true))
        defer { silent.stop() }
        var silentConfiguration = APNsClientConfiguration(sendEndpoint: silent.endpoint, managementEndpoint: silent.endpoint)
        silentConfiguration.requestTimeout = .milliseconds(300)
        let silentClient = try APNsClient(configuration: silentConfiguration, logger: logger, tokens: client.tokens)
        do {
            _ = try await silentClient.listChannels(bundleID: "com.example.scores", credentials: credentials)
        } catch {
            texts.append(String(describing: error))
        }
        let authorizations = try #require(try await server.stats()["authorizations"] as? [String])
        #expect(authorizations.count == 2)
        #expect(!sink.lines.isEmpty)
        texts += sink.lines
        for authorization in authorizations {
            let signature = String(authorization.split(separator: ".").last ?? "")
            #expect(signature.count > 40)
            for text in texts {
                #expect(!text.contains(signature))
            }
        }
        await client.shutdown()
        await silentClient.shutdown()
    }
}
