import APNsSimulator
import Foundation
import Synchronization
import Testing
@testable import APNs

/// The client's count of open connections against the simulator over real HTTP/2 and TLS:
/// libcurl's own socket opens and closes, checked against the connections the simulator saw.
@Suite("open connections to APNs")
struct OpenConnectionsTests {
    /// Every change the client reports, with the current and highest count per host.
    final class Recorder: APNsConnectionObserver {
        struct Counts: Sendable {
            var current: [APNsHost: Int] = [:]
            var peak: [APNsHost: Int] = [:]
            var changes = 0
        }

        let counts = Mutex(Counts())

        func connectionsChanged(host: APNsHost, delta: Int) {
            counts.withLock { counts in
                counts.current[host, default: 0] += delta
                counts.peak[host] = max(counts.peak[host, default: 0], counts.current[host, default: 0])
                counts.changes += 1
            }
        }

        var snapshot: Counts { counts.withLock { $0 } }
    }

    @Test("0 before the first request, at least 1 while sending, never above the maximum, 0 after shutdown")
    func countsFollowTheConnections() async throws {
        try await SimulatorHarness.with { sim in
            let recorder = Recorder()
            // Loopback by address (one socket per connection, no IPv6 attempt first), two
            // connections of five streams each: a burst needs both.
            let client = try sim.client(connectionObserver: recorder) { configuration in
                configuration.sendEndpoint.host = "127.0.0.1"
                configuration.managementEndpoint.host = "127.0.0.1"
                configuration.maxConnectionsPerHost = 2
                configuration.maxConcurrentStreams = 5
                // 200 sends queue for ten streams, and the deadline counts the queueing: only a
                // hang's bound here (10 s failed once on a loaded machine), the counts are the test.
                configuration.requestTimeout = .seconds(120)
            }
            #expect(client.openConnections(to: .send) == 0)
            #expect(client.openConnections(to: .management) == 0)
            #expect(recorder.snapshot.changes == 0)

            let channelID = try #require(try await client.createChannel(
                bundleID: SimulatorHarness.bundleID, policy: .noMessageStored, credentials: sim.credentials).channelID)
            #expect(client.openConnections(to: .management) == 1)
            #expect(client.openConnections(to: .send) == 0)

            let payload = Array(#"{"aps":{"timestamp":1764453600,"event":"update","content-state":{"homeScore":1}}}"#.utf8)
            let whileSending = try await withThrowingTaskGroup(of: (Int, Int).self) { group in
                for _ in 0..<200 {
                    group.addTask {
                        let response = try await client.sendBroadcast(
                            Broadcast(bundleID: SimulatorHarness.bundleID, channelID: channelID, priority: .opportunistic, expiration: 0,
                                      payload: payload), credentials: sim.credentials)
                        return (response.status, client.openConnections(to: .send))
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(whileSending.allSatisfy { $0.0 == 200 })
            // Counted the moment each answer arrived: its connection was open.
            #expect(whileSending.allSatisfy { (1...2).contains($0.1) }, "\(whileSending.map(\.1))")
            #expect((1...2).contains(recorder.snapshot.peak[.send] ?? 0), "\(recorder.snapshot)")

            // The client's count is the number of connections the simulator served broadcasts on
            // (none was closed: no GOAWAY, no failure).
            let served = Set(sim.simulator.receivedRequests().filter { $0.port == "send" }.map(\.connection))
            #expect(client.openConnections(to: .send) == served.count)
            #expect(recorder.snapshot.current[.send] == served.count)
            #expect(client.openConnections(to: .management) == 1)

            await client.shutdown()
            #expect(client.openConnections(to: .send) == 0)
            #expect(client.openConnections(to: .management) == 0)
            let final = recorder.snapshot
            #expect(final.current[.send] == 0 && final.current[.management] == 0, "\(final)")
            #expect(final.peak[.management] == 1)
        }
    }

    @Test("connections the server ends with GOAWAY are counted out; every open is matched by a close")
    func serverClosesAreCounted() async throws {
        try await SimulatorHarness.with { sim in
            let recorder = Recorder()
            let client = try sim.client(connectionObserver: recorder) { configuration in
                configuration.sendEndpoint.host = "127.0.0.1"
                configuration.managementEndpoint.host = "127.0.0.1"
                configuration.maxConnectionsPerHost = 1
            }
            // Every connection ends after two streams, so six requests one after another need three.
            try sim.simulator.setFaults(SimulatorFaults(goAwayAfterStreams: 2))
            for _ in 0..<6 {
                let listed = try await client.listChannels(bundleID: SimulatorHarness.bundleID, credentials: sim.credentials)
                #expect(listed.status == 200)
            }
            let served = Set(sim.simulator.receivedRequests().filter { $0.port == "management" }.map(\.connection))
            #expect(served.count >= 3)
            // One snapshot (the last connection's GOAWAY may close it at any moment): one open per
            // connection the simulator saw; all but the one still open were closed, and counted.
            let counts = recorder.snapshot
            let open = counts.current[.management, default: 0]
            #expect((0...1).contains(open))
            #expect(counts.changes == served.count + (served.count - open), "\(counts)")
            await client.shutdown()
            #expect(client.openConnections(to: .management) == 0)
            #expect(recorder.snapshot.changes == 2 * served.count)
            #expect(recorder.snapshot.current[.management] == 0)
        }
    }
}
