import Foundation
import Postgres
@testable import Registry
import ScorecastCore
import Testing

/// The lighter channel tier (frequent updates off): every update, priority 10 only for
/// kick-off, goals and full time — through the real ingest into the outbox.
@Suite struct LightTierTests {
    @Test func onlyKickOffGoalsAndFullTimeAlertOnTheLightChannel() async throws {
        try await RegistryFixture.with { fixture in
            let app = try await fixture.addApp(environment: .sandbox)
            try await fixture.addGame("g1")
            let standard = try await fixture.registry().createChannel(gameID: "g1", app: app).listing.channel
            let light = try await fixture.registry().lightChannel(gameID: "g1", app: app).listing.channel
            #expect(light.id != standard.id)
            let ingestor = EventIngestor(pool: fixture.pool, settings: IngestSettings(), logger: RegistryFixture.logger)
            func post(_ json: String) async throws -> [Int64: (priority: Int16, alerting: Bool)] {
                let events = try FeedEventValidator().events(fromBody: Array(json.utf8), now: Date())
                _ = try await ingestor.ingest(events, feed: "test")
                var rows: [Int64: (Int16, Bool)] = [:]
                for row in try await fixture.pool.query("SELECT channel_id, priority, alerting FROM outbox") {
                    rows[try row.decode("channel_id")] = (try row.decode("priority"), try row.decode("alerting"))
                }
                try await fixture.pool.execute("DELETE FROM outbox")
                return rows
            }
            let card = try await post(#"{"id":"c1","game":"g1","seq":1,"occurredAt":"2026-11-29T20:05:00Z","kind":"card","team":"away","alert":true}"#)
            #expect(card[standard.id]?.priority == 10 && card[standard.id]?.alerting == true, "the feed's alert flag holds on the standard channel")
            #expect(card[light.id]?.priority == 5 && card[light.id]?.alerting == false, "but not on the light one")
            let penalty = try await post(#"{"id":"p1","game":"g1","seq":2,"occurredAt":"2026-11-29T20:06:00Z","kind":"penalty","team":"home"}"#)
            #expect(penalty[standard.id]?.priority == 10 && penalty[light.id]?.priority == 5)
            let goal = try await post(#"{"id":"s1","game":"g1","seq":3,"occurredAt":"2026-11-29T20:07:00Z","kind":"score","team":"home","scoreboard":{"home":1}}"#)
            #expect(goal[standard.id]?.priority == 10 && goal[light.id]?.priority == 10 && goal[light.id]?.alerting == true)
            let final = try await post(#"{"id":"f1","game":"g1","seq":4,"occurredAt":"2026-11-29T21:50:00Z","kind":"final"}"#)
            #expect(final[light.id]?.priority == 10)
        }
    }
}
