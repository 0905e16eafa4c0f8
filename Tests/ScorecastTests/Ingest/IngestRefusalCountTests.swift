import DeliveryEngine
import Foundation
import ScorecastCore
import HTTPServer
import ServiceBase
import Statistics
import Testing
import TestSupport

/// Refused feed events are not invisible: each refusal of `POST /v1/events` is counted by
/// reason in `scorecast_events_ingested_total{outcome="rejected"}` and in `/v1/stats`.
@Suite("POST /v1/events: refusals counted by reason")
struct IngestRefusalCountTests {
    @Test("401, 413, 415, 400, 422 (fields, unknown game) and 429 each count their events under their reason")
    func refusalsAreCountedByReason() async throws {
        try await IngestFixture.with(configure: { $0.createUnknownGames = false; $0.maximumBodyBytes = 4_096 }) { fixture in
            try await fixture.addGame("g1")
            let json: HTTPHeaders = ["Authorization": "Bearer \(fixture.token.text)", "Content-Type": "application/json"]
            let valid = IngestRefusalTests.valid
            let badField = EventJSON.event(id: "e1", seq: 1, scoreboard: #"{"home": 1.5}"#)
            let sent: [(body: String, headers: HTTPHeaders, status: Int)] = [
                (valid, ["Content-Type": "application/json"], 401),
                (valid, ["Authorization": "Bearer hunter2", "Content-Type": "application/json"], 401),
                (valid, ["Authorization": "Bearer \(fixture.token.text)", "Content-Type": "text/plain"], 415),
                (#"{"id": "#, json, 400),
                (EventJSON.batch([badField, badField.replacingOccurrences(of: "\"e1\"", with: "\"e2\"")]), json, 422),
                (EventJSON.event(id: "n1", game: "nope", seq: 1), json, 422),
                (EventJSON.event(id: "big", seq: 1, extra: "\"player\": \"\(String(repeating: "p", count: 5_000))\""), json, 413),
            ]
            for (body, headers, status) in sent {
                let reply = await fixture.post(body, headers: headers)
                #expect(reply.status == status, "\(reply.text)")
            }
            #expect(await fixture.post(valid).status == 202, "a good request is no refusal")

            let expected: [IngestRefusal: Int] = [
                .unauthorized: 2, .unsupportedMediaType: 1, .malformed: 1, .invalid: 2, .unknownGame: 1, .tooLarge: 1,
            ]
            for reason in IngestRefusal.allCases {
                let feed = reason == .unauthorized || reason == .tooLarge ? "" : "feed-a"
                let counted = fixture.metrics.eventsIngested.value(.rejected(feed: feed, reason: reason))
                #expect(counted == Double(expected[reason] ?? 0), "\(reason)")
            }
            #expect(fixture.metrics.eventsIngested.value(IngestLabels(feed: "feed-a", outcome: .accepted)) == 1)

            let stats = try await StatsQuery(pool: fixture.pool, budgetProfiles: BudgetProfiles(standardPerHour: 12, frequentPerHour: 60), channelLimit: 10_000)
                .overview(window: .default, now: fixture.clock.now())
            #expect(stats.totals.events.rejected == 8)
            #expect(stats.refusals == ReasonCount.sorted(Dictionary(uniqueKeysWithValues: expected.map { ($0.key.rawValue, $0.value) })))
        }
    }

    @Test("the hourly quota of new games is counted on the service clock: a game it dates over an hour ago no longer counts")
    func quotaHourIsTheServiceClocks() async throws {
        try await IngestFixture.with(configure: { $0.gamesPerFeedPerHour = 1 }) { fixture in
            #expect(await fixture.post(EventJSON.event(id: "a", game: "new-1", seq: 1)).status == 202)
            #expect(await fixture.post(EventJSON.event(id: "b", game: "new-2", seq: 1)).status == 429, "the hour's one game is taken")
            // An hour and a second later on the service clock; seconds later on the database's.
            fixture.clock.advance(by: .seconds(3_601))
            let reply = await fixture.post(EventJSON.event(id: "b", game: "new-2", seq: 1, at: 3_601))
            #expect(reply.status == 202, "\(reply.text)")
            let created = try await fixture.pool.query("SELECT created_at FROM games WHERE id = 'new-2'")[0].decode("created_at", as: Date.self)
            #expect(created == fixture.clock.now(), "dated by the service clock")
        }
    }

    @Test("a game that is over finished at the service clock's time, which its channels' retirement counts from")
    func finishedOnTheServiceClock() async throws {
        try await IngestFixture.with { fixture in
            #expect(await fixture.post(EventJSON.event(id: "a", game: "g-over", seq: 1)).status == 202)
            fixture.clock.advance(by: .seconds(7_200))
            let reply = await fixture.post(EventJSON.event(id: "b", game: "g-over", seq: 2, at: 7_200, kind: "final"))
            #expect(reply.status == 202, "\(reply.text)")
            let finished = try await fixture.pool.query("SELECT finished_at FROM games WHERE id = 'g-over'")[0]
                .decode("finished_at", as: Date?.self)
            #expect(finished == fixture.clock.now(), "dated by the service clock, not the database's")
        }
    }

    @Test("429: a feed over its hourly quota of new games is counted as game_quota")
    func quotaRefusalIsCounted() async throws {
        try await IngestFixture.with(configure: { $0.gamesPerFeedPerHour = 1 }) { fixture in
            let reply = await fixture.post(EventJSON.batch([
                EventJSON.event(id: "a", game: "new-1", seq: 1), EventJSON.event(id: "b", game: "new-2", seq: 1),
            ]))
            #expect(reply.status == 429, "\(reply.text)")
            #expect(fixture.metrics.eventsIngested.value(.rejected(feed: "feed-a", reason: .gameQuota)) == 2)
            let stats = try await StatsQuery(pool: fixture.pool, budgetProfiles: BudgetProfiles(standardPerHour: 12, frequentPerHour: 60), channelLimit: 10_000)
                .overview(window: .default, now: fixture.clock.now())
            #expect(stats.refusals == [ReasonCount(reason: "game_quota", count: 2)])
        }
    }
}
