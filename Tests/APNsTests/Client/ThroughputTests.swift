import APNsSimulator
import Foundation
import Testing
@testable import APNs

/// The two load tests, one after the other so each has the machine to itself.
@Suite("throughput", .serialized)
struct ThroughputTests {
    @Test("10,000 broadcasts over one connection at a time (nghttpd): all answered, rate reported")
    func tenThousandBroadcastsToNGHTTPD() async throws {
        let bundleID = "com.example.scores"
        let server = try await NGHTTPDServer(bundleID: bundleID)
        defer { server.stop() }
        var configuration = APNsClientConfiguration(sendEndpoint: server.endpoint, managementEndpoint: server.endpoint)
        configuration.maxConnectionsPerHost = 1
        configuration.maxConcurrentStreams = 100
        configuration.requestTimeout = .seconds(300)  // bounds a hang only: the burst queues behind one connection
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
        // libcurl 7.88 answers every body-less response with RST_STREAM; nghttpd's rapid-reset
        // guard then sends GOAWAY about every thousand streams, and the client moves to a fresh
        // connection without losing a request (rapidResetGuardUnderLoad measures it on the simulator).
        #expect(connections <= count / 500, "\(connections) new connections")
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        print("APNs client throughput: \(count) broadcasts over one HTTP/2 TLS connection at a time (\(connections) replacements) in \(String(format: "%.2f", seconds)) s = \(Int(Double(count) / seconds)) req/s")
        await client.shutdown()
    }

    private static func broadcast(_ channelID: String) -> Broadcast {
        Broadcast(bundleID: SimulatorHarness.bundleID, channelID: channelID, priority: .immediate, expiration: 0,
                  payload: APNsClientSimulatorTests.payload)
    }

    /// Debian 12's libcurl 7.88 answers every response that ends without a body (APNs' 200s)
    /// with RST_STREAM(STREAM_CLOSED). The simulator keeps nghttp2's rapid-reset guard
    /// (CVE-2023-44487), as APNs' own behaviour is unknown, so a burst meets a GOAWAY about
    /// every thousand streams. This measures what that costs: replacement connections,
    /// requests the simulator received twice (resends of requests caught in a closing
    /// connection), and lost requests, which must be none.
    @Test("10,000 broadcasts to the simulator, one connection at a time: GOAWAYs from libcurl 7.88's resets lose nothing")
    func rapidResetGuardUnderLoad() async throws {
        try await SimulatorHarness.with(configure: { $0.requestLogCapacity = 100 }) { sim in
            let client = try sim.client {
                $0.maxConnectionsPerHost = 1
                $0.requestTimeout = .seconds(300)  // bounds a hang only: the burst queues behind one connection
            }
            let channel = try #require(try await client.createChannel(
                bundleID: SimulatorHarness.bundleID, policy: .noMessageStored, credentials: sim.credentials).channelID)
            let first = try await client.sendBroadcast(Self.broadcast(channel), credentials: sim.credentials)
            #expect(first.connectionsOpened == 1)
            let receivedBefore = sim.simulator.statistics().received
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
            let received = sim.simulator.statistics().received - receivedBefore
            // Lost: none. Every broadcast was answered 200 (a request the client gave up on
            // would have thrown and failed the group).
            #expect(statuses == [200: count])
            // Each GOAWAY costs one replacement connection: about one per thousand streams.
            #expect(connections >= 1 && connections <= count / 500, "\(connections) new connections")
            // Streams above a GOAWAY's last id are refused and resent by libcurl (never
            // processed); a stream answered as the connection closed may be resent by the
            // client (broadcasts are retry-safe), so the simulator may see a few twice.
            let duplicates = received - count
            #expect(duplicates >= 0 && duplicates <= count / 100, "\(duplicates) received twice")
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            print("APNs client → simulator: \(count) broadcasts, one connection at a time: \(connections) GOAWAY replacements, \(duplicates) received twice, 0 lost, in \(String(format: "%.2f", seconds)) s = \(Int(Double(count) / seconds)) req/s")
            await client.shutdown()
        }
    }
}
