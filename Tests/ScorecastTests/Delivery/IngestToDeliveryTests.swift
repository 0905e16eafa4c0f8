import APNsSimulator
import DeliveryEngine
import Foundation
import Registry
import ScorecastLogging
import Postgres
import ScorecastCore
import Testing
import TestSupport

/// Ingest (the real `EventIngestor`) feeding the worker pool through the outbox, with the
/// APNs simulator slowed down: the two halves agree on the outbox's contract.
@Suite struct IngestToDeliveryTests {
    static func event(seq: Int, goals: Int) -> String {
        let kind = seq % 10 == 0 ? "score" : "clock"
        let extra = kind == "score" ? #", "team": "home""# : ""
        return #"{"id": "e\#(seq)", "game": "g1", "seq": \#(seq), "occurredAt": "2025-11-29T20:\#(String(format: "%02d", seq / 2 % 60)):00Z", "kind": "\#(kind)"\#(extra), "scoreboard": {"home": \#(goals), "away": 0, "period": "1H", "clock": "\#(seq)'"}}"#
    }

    @Test func aHundredEventsForOneGameCoalesceAndTheLastStateIsDelivered() async throws {
        try await DeliveryHarness.with { harness in
            let channel = try await harness.createChannel()
            try await harness.pool.execute("INSERT INTO games (id, home_team, away_team) VALUES ('g1', 'Arsenal', 'Chelsea')")
            try await harness.pool.execute("INSERT INTO channel_bindings (channel_id, game_id) VALUES (\(channel.id), 'g1')")
            try harness.simulator.setFaults(SimulatorFaults(latencyMilliseconds: 150))
            let ingestor = EventIngestor(
                pool: harness.pool, settings: IngestSettings(shaping: ShapingPolicy(routineInterval: 0)),
                logger: Logger(label: "ingest", level: .warning))
            let validator = FeedEventValidator()
            // The whole backlog is written before any worker runs, so how far it coalesces does
            // not depend on how fast this machine ingests (with workers sending meanwhile, the
            // count of sends followed the load: 37 on a busy machine against ≤ 30 expected).
            for seq in 1...100 {
                let body = Array(Self.event(seq: seq, goals: seq / 10).utf8)
                let events = try validator.events(fromBody: body, now: Date())
                let report = try await ingestor.ingest(events, feed: "test")
                #expect(report.results.count == 1)
            }
            let workers = harness.makePool(harness.settings(workers: 2))
            try await harness.running(workers) {
                try await eventually("the backlog drains") { try await harness.outboxCount() == 0 }
            }
            let received = harness.broadcasts(to: channel.apnsID)
            // Each of the 10 goals is a send of its own (an alert is never coalesced away), each
            // carrying the newest state; the 90 clock ticks only ride along.
            #expect(received.count == 10, "100 events took \(received.count) sends")
            #expect(received.allSatisfy { $0.status == 200 })
            let last = try #require(received.last)
            #expect(last.body.contains("\"homeScore\":10"), "\(last.body)")
            #expect(last.body.contains("100'"), "\(last.body)")

            // Every goal reached the phone in a priority-10 send of a payload that covered it.
            let goalIDs = try await harness.pool.query("SELECT id FROM events WHERE kind = 'score' ORDER BY seq").map { try $0.decode("id", as: Int64.self) }
            #expect(goalIDs.count == 10)
            let sent = try await harness.pool.query("""
                SELECT event_ids, requested_priority FROM deliveries WHERE channel_id = \(channel.id) AND outcome = 'sent'
                """)
            var coveredAtTen: Set<Int64> = []
            for row in sent where try row.decode("requested_priority", as: Int.self) == 10 {
                coveredAtTen.formUnion(try row.decode("event_ids", as: [Int64].self))
            }
            let missing = goalIDs.filter { !coveredAtTen.contains($0) }
            // A goal that arrives while an older row is in flight starts a fresh row; later
            // routine updates merge into that row (ingest compares `claimed_version` with
            // `version`), so the goal's alert and priority 10 are never lost.
            #expect(missing.isEmpty, "goals never sent at priority 10: \(missing)")
        }
    }
}
