import APNsSimulator
import DeliveryEngine
import Foundation
import Registry
import ScorecastLogging
import ScorecastCore
import Testing
import TestSupport

/// Nothing is dropped while APNs is down: 503s for longer than a row's attempt budget cost a
/// probe per interval, not a request per row, and once APNs answers every channel gets its
/// newest state and every alert — without waiting out any row's backoff.
@Suite struct OutageTests {
    @Test func aLongOutageCostsProbesThenEveryStateAndAlertGoesWhenTheHostAnswers() async throws {
        try await DeliveryHarness.with { harness in
            var channels: [(id: Int64, apnsID: String)] = []
            for index in 0..<6 {
                let channel = try await harness.createChannel()
                try await harness.pool.execute("INSERT INTO games (id, home_team, away_team) VALUES (\("g\(index)"), 'Arsenal', 'Chelsea')")
                try await harness.pool.execute("INSERT INTO channel_bindings (channel_id, game_id) VALUES (\(channel.id), \("g\(index)"))")
                channels.append(channel)
            }
            let ingestor = EventIngestor(
                pool: harness.pool, settings: IngestSettings(shaping: ShapingPolicy(routineInterval: 0)),
                logger: Logger(label: "ingest", level: .warning))
            // Three attempts, then backoffs of up to ten minutes: only the breaker's recovery can
            // bring the rows back within the test.
            var settings = harness.settings(
                workers: 2, retry: RetryPolicy(baseDelay: 0.05, maximumDelay: 600, minimumDelay: 0.01, maximumAttempts: 3))
            settings.breakerPolicy = CircuitBreaker.Policy(failureThreshold: 4, initialOpenInterval: 0.2, maximumOpenInterval: 0.5, probeTimeout: 10)
            let workers = harness.makePool(settings)
            try harness.simulator.setFaults(SimulatorFaults(failPercent: 100, failStatus: 503))
            try await harness.running(workers) {
                for (index, _) in channels.enumerated() {
                    let body = Array(#"{"events": [\#(Self.goal(game: index, seq: 1, home: 1)), \#(Self.goal(game: index, seq: 2, home: 2))]}"#.utf8)
                    _ = try await ingestor.ingest(try FeedEventValidator().events(fromBody: body, now: Date()), feed: "test")
                }
                try await eventually("the rows gave up their attempt budget") {
                    let gaveUp = try await harness.pool.query("SELECT count(*)::int8 AS n FROM deliveries WHERE reason LIKE 'ServiceUnavailable' AND outcome = 'failed'")[0]
                    return try gaveUp.decode("n", as: Int.self) >= 2
                }
                #expect(workers.statistics.breakerOpened >= 2)
                #expect(try await harness.outboxCount() == channels.count, "no state was dropped")
                let failedRequests = harness.simulator.receivedRequests().filter { $0.port == "send" && $0.status == 503 }.count
                // Before the breaker opened (4 failures): a first attempt per row and a few quick
                // retries in flight; after it, one probe at a time — never a request per row per backoff.
                #expect(failedRequests <= 2 * channels.count + workers.statistics.probes, "\(failedRequests) requests")

                try harness.simulator.setFaults(.none)
                try await eventually("every channel is up to date") { try await harness.outboxCount() == 0 }
            }
            for (index, channel) in channels.enumerated() {
                let accepted = try harness.broadcasts(to: channel.apnsID).filter { $0.status == 200 }.map(AlertQueueTests.seen)
                #expect(accepted.compactMap(\.player) == ["P\(index)-1", "P\(index)-2"], "channel \(index): \(accepted)")
                #expect(accepted.last?.homeScore == 2, "channel \(index)")
            }
        }
    }

    static func goal(game: Int, seq: Int, home: Int) -> String {
        #"{"id": "g\#(game)-\#(seq)", "game": "g\#(game)", "seq": \#(seq), "occurredAt": "2025-11-29T20:10:00Z", "kind": "score", "team": "home", "player": "P\#(game)-\#(seq)", "scoreboard": {"home": \#(home), "away": 0}}"#
    }
}
