import APNsSimulator
import Foundation
import Testing
@testable import APNs

/// The two load tests, one after the other so each has the machine to itself.
@Suite("throughput", .serialized)
struct ThroughputTests {
    @Test("10,000 broadcasts over one connection (nghttpd): all answered, no new connection, rate reported")
    func tenThousandBroadcastsToNGHTTPD() async throws {
        let bundleID = "com.example.scores"
        let server = try await NGHTTPDServer(bundleID: bundleID)
        defer { server.stop() }
        var configuration = APNsClientConfiguration(sendEndpoint: server.endpoint, managementEndpoint: server.endpoint)
        configuration.maxConnectionsPerHost = 1
        configuration.maxConcurrentStreams = 100
        configuration.requestTimeout = .seconds(30)
        let client = try APNsClient(configuration: configuration, logger: TestLog.logger)
        let credentials = try ProviderTokenTests.credentials()
        let payload = Array(#"{"aps":{"timestamp":1764453600,"event":"update","content-state":{"homeScore":2,"awayScore":1}}}"#.utf8)
        let count = 10_000
        // The first request opens the connection; the burst must reuse it.
        let first = try await client.sendBroadcast(Broadcast(bundleID: bundleID, channelID: "d2FybXVw", priority: .immediate,
                                                             expiration: 0, payload: payload), credentials: credentials)
        #expect(first.connectionsOpened == 1)
        let started = ContinuousClock.now
        let (statuses, connections) = try await withThrowingTaskGroup(of: APNsResponse.self) { group in
            for index in 0..<count {
                group.addTask {
                    try await client.sendBroadcast(Broadcast(bundleID: bundleID, channelID: "Y2hhbm5lbA\(index % 64)",
                                                             priority: .immediate, expiration: 0, payload: payload),
                                                   credentials: credentials)
                }
            }
            return try await group.reduce(into: ([Int: Int](), 0)) { totals, response in
                totals.0[response.status, default: 0] += 1
                totals.1 += response.connectionsOpened
            }
        }
        let elapsed = ContinuousClock.now - started
        #expect(statuses == [200: count])
        #expect(connections == 0)
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        print("APNs client throughput: \(count) broadcasts over one HTTP/2 TLS connection in \(String(format: "%.2f", seconds)) s = \(Int(Double(count) / seconds)) req/s")
        await client.shutdown()
    }

    private static func broadcast(_ channelID: String) -> Broadcast {
        Broadcast(bundleID: SimulatorHarness.bundleID, channelID: channelID, priority: .immediate, expiration: 0,
                  payload: APNsClientSimulatorTests.payload)
    }

    @Test("10,000 broadcasts to the simulator over one connection: all accepted, no reconnect, rate reported")
    func tenThousandBroadcastsToSimulator() async throws {
        try await SimulatorHarness.with(configure: { $0.requestLogCapacity = 100 }) { sim in
            let client = try sim.client {
                $0.maxConnectionsPerHost = 1
                $0.requestTimeout = .seconds(60)
            }
            let channel = try #require(try await client.createChannel(
                bundleID: SimulatorHarness.bundleID, policy: .noMessageStored, credentials: sim.credentials).channelID)
            let first = try await client.sendBroadcast(Self.broadcast(channel), credentials: sim.credentials)
            #expect(first.connectionsOpened == 1)
            let count = 10_000
            let started = ContinuousClock.now
            let (statuses, connections) = try await withThrowingTaskGroup(of: APNsResponse.self) { group in
                for _ in 0..<count {
                    group.addTask { try await client.sendBroadcast(Self.broadcast(channel), credentials: sim.credentials) }
                }
                return try await group.reduce(into: ([Int: Int](), 0)) { totals, response in
                    totals.0[response.status, default: 0] += 1
                    totals.1 += response.connectionsOpened
                }
            }
            let elapsed = ContinuousClock.now - started
            #expect(statuses == [200: count])
            // One connection for all of them (maxConnectionsPerHost 1): the client sends no
            // RST_STREAM after a complete answer, so nghttp2's rapid-reset guard in the
            // simulator (as in APNs-like servers) never answers a burst with GOAWAY.
            #expect(connections == 0, "\(connections) new connections")
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            print("APNs client → simulator: \(count) broadcasts, one connection (\(connections) replacements) in \(String(format: "%.2f", seconds)) s = \(Int(Double(count) / seconds)) req/s")
            await client.shutdown()
        }
    }
}
