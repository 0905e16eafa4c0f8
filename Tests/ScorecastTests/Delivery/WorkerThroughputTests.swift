import APNs
import APNsSimulator
import Delivery
import Foundation
import Postgres
import ScorecastCore
import Testing
import TestSupport

/// Many channels with one update each, drained by a pool with the production defaults (4
/// workers, batches of 64): every update reaches APNs and is recorded sent exactly once, and
/// the rate is reported.
@Suite struct WorkerThroughputTests {
    /// Channels in the burst; `SCORECAST_TEST_THROUGHPUT_CHANNELS` makes a bigger one (benchmarking).
    static let channelCount = ProcessInfo.processInfo.environment["SCORECAST_TEST_THROUGHPUT_CHANNELS"].flatMap { Int($0) }.map { max(16, $0) } ?? 2_000
    /// Workers and batch size: the production defaults unless `SCORECAST_TEST_THROUGHPUT_WORKERS` /
    /// `…_BATCH` say otherwise (benchmarking).
    static let workers = ProcessInfo.processInfo.environment["SCORECAST_TEST_THROUGHPUT_WORKERS"].flatMap { Int($0) } ?? 4
    static let batch = ProcessInfo.processInfo.environment["SCORECAST_TEST_THROUGHPUT_BATCH"].flatMap { Int($0) } ?? 64

    @Test func aBurstAcrossManyChannelsIsDeliveredAndRecordedOnce() async throws {
        try await DeliveryHarness.with(configure: { $0.requestLogCapacity = Self.channelCount * 2 + 100 }) { harness in
            // Channels are created at the simulator concurrently (the client multiplexes them).
            let credentials = try APNsCredentials(teamID: harness.teamID, keyID: harness.keyID, keyFile: harness.keyPath)
            // One channel first: until a request succeeds on a connection, APNs allows one stream.
            let first = try await Self.createChannel(harness, credentials)
            let apnsIDs = try await withThrowingTaskGroup(of: [String].self) { group in
                for index in 0..<8 {
                    group.addTask {
                        var ids: [String] = []
                        for _ in 0..<((Self.channelCount - 1) / 8 + (index < (Self.channelCount - 1) % 8 ? 1 : 0)) {
                            ids.append(try await Self.createChannel(harness, credentials))
                        }
                        return ids
                    }
                }
                var all: [String] = [first]
                for try await ids in group { all += ids }
                return all
            }
            #expect(apnsIDs.count == Self.channelCount)
            try await harness.pool.execute("""
                WITH made AS (
                    INSERT INTO channels (apns_channel_id, app_id, storage_policy)
                    SELECT id, \(harness.appID), 0 FROM unnest(\(apnsIDs)::text[]) AS id
                    RETURNING id
                )
                INSERT INTO outbox (channel_id, payload, payload_timestamp, priority, alerting, event_ids, first_ingested_at, due_at)
                SELECT id, convert_to('{"aps":{"timestamp":1750000000,"event":"update","content-state":{"homeScore":' || id || '}}}', 'UTF8'),
                       1750000000, 10, true, ARRAY[id], now(), now()
                FROM made
                """)

            let before = harness.simulator.statistics().answers["200"] ?? 0
            let workers = harness.makePool(harness.settings(workers: Self.workers, batch: Self.batch, lease: .seconds(30), poll: .milliseconds(200)))
            let started = ContinuousClock.now
            let elapsed = try await harness.running(workers) {
                try await harness.pool.notify(channel: WorkerSettings.defaultNotifyChannel)
                try await eventually("the burst is delivered", deadline: hangDeadline * 4) { try await harness.outboxCount() == 0 }
                return ContinuousClock.now - started
            }
            let rate = Double(Self.channelCount) / elapsed.seconds
            #if DEBUG
            let build = "debug"
            #else
            let build = "release"
            #endif
            print("worker throughput: \(Self.channelCount) broadcasts in \(elapsed) = \(Int(rate))/s (\(build) build, \(Self.workers) workers × \(Self.batch))")

            // Delivery is at least once: APNs may accept a send whose answer was lost with its
            // connection. The APNs client resends such broadcasts itself (Debian's libcurl 7.88
            // resets every body-less answer, so the simulator's rapid-reset guard closes a busy
            // connection about every 1,000 streams; docs/decisions/libcurl.md), and the worker resends
            // after a transport failure it saw; either way a repeat is the same payload, which the
            // device drops by timestamp. Repeats must stay rare, and every channel must have been
            // delivered and recorded exactly once.
            let accepted = harness.simulator.receivedRequests().filter { $0.port == "send" && $0.status == 200 }
            let perChannel = Dictionary(grouping: accepted.compactMap { $0.header("apns-channel-id") }, by: { $0 }).mapValues(\.count)
            #expect(Set(apnsIDs).isSubset(of: Set(perChannel.keys)))
            let repeated = perChannel.filter { $0.value > 1 }.map(\.key)
            #expect(repeated.count <= Self.channelCount / 100, "\(repeated.count) of \(Self.channelCount) channels got a repeat")
            if !repeated.isEmpty { print("worker throughput: \(repeated.count) sends repeated (at least once)") }
            #expect((harness.simulator.statistics().answers["200"] ?? 0) - before == Self.channelCount + accepted.count - perChannel.count)
            let sent = try await harness.pool.query("""
                SELECT count(*)::int8 AS n, count(DISTINCT channel_id)::int8 AS channels FROM deliveries WHERE outcome = 'sent'
                """)[0]
            #expect(try sent.decode("n", as: Int.self) == Self.channelCount)
            #expect(try sent.decode("channels", as: Int.self) == Self.channelCount)
            #expect(workers.statistics.sent == Self.channelCount)
            let requests = harness.simulator.receivedRequests().filter { $0.port == "send" }
            #expect(Set(requests.compactMap { $0.header("apns-channel-id") }).count == Self.channelCount)
        }
    }
}

extension WorkerThroughputTests {
    /// Creates a channel at the simulator, trying again when the connection is lost: the
    /// simulator's rapid-reset guard ends a connection after about 1,000 of libcurl 7.88's
    /// resets, and a creation caught in that close is never resent by the client (it is not
    /// retry-safe); channel creation is not what this test measures.
    static func createChannel(_ harness: DeliveryHarness, _ credentials: APNsCredentials) async throws -> String {
        var attempt = 0
        while true {
            attempt += 1
            do {
                let response = try await harness.client.createChannel(
                    bundleID: harness.bundleID, policy: .noMessageStored, credentials: credentials)
                guard let id = response.channelID else { throw TestSupportError("no channel id (\(response.status))") }
                return id
            } catch let error as APNsClientError where error.code == .connectionLost && attempt < 3 {
                continue
            }
        }
    }
}

extension Duration {
    fileprivate var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
