import DeliveryEngine
import Foundation
import Registry
import ScorecastLogging
import Postgres
import ScorecastCore
import Testing
import TestSupport

/// The fast lane: a goal announced by ingest's NOTIFY is claimed at once, while a worker that
/// just claimed a partial batch lingers (`claimLinger`) for routine rows to accumulate.
@Suite struct AlertFastLaneTests {
    @Test func aGoalIngestedWhileTheWorkersLingerIsSentWithoutWaitingForTheLinger() async throws {
        try await DeliveryHarness.with { harness in
            let routine = try await harness.createChannel()
            let goal = try await harness.createChannel()
            try await harness.pool.execute("INSERT INTO games (id, home_team, away_team) VALUES ('g1', 'Arsenal', 'Chelsea')")
            try await harness.pool.execute("INSERT INTO channel_bindings (channel_id, game_id) VALUES (\(goal.id), 'g1')")
            // One routine row waits before the workers start: the first claim takes it, a partial
            // batch, so the workers then linger; the linger and the poll are far longer than the
            // hang deadline, so only the fast lane can send the goal before it.
            try await harness.enqueue(channelID: routine.id, score: 0, timestamp: 1_750_000_000, priority: 5, alerting: false, notify: false)
            var settings = harness.settings(poll: .seconds(600))
            settings.claimLinger = .seconds(600)
            let workers = harness.makePool(settings)
            let ingestor = EventIngestor(
                pool: harness.pool, settings: IngestSettings(shaping: ShapingPolicy(routineInterval: 0)),
                logger: Logger(label: "ingest", level: .warning))
            try await harness.running(workers) {
                try await eventually("the routine row is sent") { harness.broadcasts(to: routine.apnsID).count == 1 }
                let body = Array(#"{"id": "goal-1", "game": "g1", "seq": 1, "occurredAt": "2025-11-29T20:10:00Z", "kind": "score", "team": "home", "scoreboard": {"home": 1, "away": 0, "period": "1H", "clock": "10'"}}"#.utf8)
                let report = try await ingestor.ingest(try FeedEventValidator().events(fromBody: body, now: Date()), feed: "test")
                #expect(report.results.count == 1)
                try await eventually("the goal is sent") { harness.broadcasts(to: goal.apnsID).count == 1 }
            }
            let sent = try #require(harness.broadcasts(to: goal.apnsID).first)
            #expect(sent.status == 200)
            #expect(sent.header("apns-priority") == "10")
            #expect(sent.body.contains("\"homeScore\":1"), "\(sent.body)")
        }
    }
}
