import Clocks
import Foundation
import Postgres
@testable import Registry
import ScorecastCore
import ScorecastLogging
@testable import Server
import Testing

/// What a feed can make scorecast create is bounded: games per key per hour, channels only
/// for games near their start or live, and games it abandons are retired.
@Suite struct FeedGameBoundsTests {
    private static let logger = Logger(label: "bounds", level: .warning)

    private func starts(_ game: String, at now: Date) -> FeedEvent {
        FeedEvent(id: "start-\(game)", game: game, seq: 1, occurredAt: now, kind: .start)
    }

    @Test func fiveHundredUnknownGamesPostedLeaveTheChannelCountWithinTheQuota() async throws {
        try await RegistryFixture.with { fixture in
            let app = try await fixture.addApp()
            let now = Date()
            let ingestor = EventIngestor(
                pool: fixture.pool, settings: IngestSettings(gamesPerFeedPerHour: 40), logger: Self.logger)
            // 500 unknown games, each started at once (live: they qualify for a channel), in
            // requests of 10 like a misbehaving feed would send them.
            var accepted = 0
            var refused = 0
            for batch in 0..<50 {
                let events = (0..<10).map { starts("flood-\(batch)-\($0)", at: now) }
                do {
                    accepted += try await ingestor.ingest(events, feed: "feed-a").accepted
                } catch let IngestError.gameQuotaExceeded(indices, new, remaining, limit) {
                    #expect(indices.count == 10 && new == 10 && limit == 40 && remaining == 0)
                    refused += 1
                }
            }
            #expect(accepted == 40 && refused == 46)
            // The quota is per key: another feed still creates games.
            #expect(try await ingestor.ingest([starts("other", at: now)], feed: "feed-b").accepted == 1)

            let duty = EnsureChannelsDuty(registry: fixture.registry(), interval: .seconds(30), batchSize: 100)
            let report = try await duty.run(at: now)
            #expect(report["created"] == 41)
            let channels = try await fixture.pool.query("SELECT count(*) AS n FROM channels WHERE app_id = \(app.id)")
            #expect(try channels[0].decode("n", as: Int.self) == 41)
            #expect(fixture.simulatorChannels().count == 41)
        }
    }

    @Test func onlyGamesLiveOrStartingWithinTheWindowGetAutomaticChannels() async throws {
        try await RegistryFixture.with { fixture in
            _ = try await fixture.addApp()
            let now = Date()
            for (id, offset) in [("soon", 3_600.0), ("far", 30 * 86_400.0), ("long-ago", -3 * 86_400.0)] {
                _ = try await GameStore(pool: fixture.pool).add(GameDraft(
                    id: id, league: "EPL", homeTeam: "A", awayTeam: "B", startsAt: now.addingTimeInterval(offset)))
            }
            // A feed-created game with no start time and no start event: not live, no channel.
            let ingestor = EventIngestor(pool: fixture.pool, settings: IngestSettings(), logger: Self.logger)
            _ = try await ingestor.ingest([FeedEvent(id: "s1", game: "unscheduled", seq: 1, occurredAt: now, kind: .scheduled)], feed: "f")
            _ = try await ingestor.ingest([starts("kicked-off", at: now)], feed: "f")

            let duty = EnsureChannelsDuty(registry: fixture.registry(), interval: .seconds(30), window: .seconds(24 * 3_600))
            #expect(try await duty.run(at: now)["created"] == 2)
            let bound = try await fixture.pool.query("SELECT DISTINCT game_id FROM channel_bindings ORDER BY game_id")
            #expect(try bound.map { try $0.decode("game_id", as: String.self) } == ["kicked-off", "soon"])
        }
    }

    @Test func gamesAFeedCreatedAndAbandonedAreRetired() async throws {
        try await RegistryFixture.with { fixture in
            _ = try await fixture.addApp()
            try await fixture.addGame("admin-game")
            let now = Date()
            let thirteenHoursAgo = now.addingTimeInterval(-13 * 3_600)
            // "silent" last heard of 13 hours ago; "chatty" just now.
            let then = EventIngestor(pool: fixture.pool, settings: IngestSettings(), logger: Self.logger, clock: ManualServiceClock(thirteenHoursAgo))
            _ = try await then.ingest([starts("silent", at: thirteenHoursAgo)], feed: "f")
            let ingestor = EventIngestor(pool: fixture.pool, settings: IngestSettings(), logger: Self.logger, clock: ManualServiceClock(now))
            _ = try await ingestor.ingest([starts("chatty", at: now)], feed: "f")
            try await fixture.pool.execute("UPDATE games SET created_at = \(thirteenHoursAgo) WHERE id = 'admin-game'")

            let duty = AbandonedGamesDuty(pool: fixture.pool, interval: .seconds(60), timeout: .seconds(12 * 3_600))
            let report = try await duty.run(at: now)
            #expect(report["retired"] == 1)
            let rows = try await fixture.pool.query("SELECT id, status FROM games ORDER BY id")
            let statuses = try Dictionary(uniqueKeysWithValues: rows.map { (try $0.decode("id", as: String.self), try $0.decode("status", as: String.self)) })
            #expect(statuses == ["admin-game": "scheduled", "chatty": "live", "silent": "cancelled"])
            #expect(try await duty.run(at: now)["retired"] == 0)
        }
    }

    @Test func aReplayOfOldEventsKeepsItsGameUntilTheFeedFallsSilent() async throws {
        try await RegistryFixture.with { fixture in
            let now = Date()
            // A backfill: the feed sends today a game that happened two days ago.
            let happened = now.addingTimeInterval(-2 * 86_400)
            let ingestor = EventIngestor(pool: fixture.pool, settings: IngestSettings(), logger: Self.logger, clock: ManualServiceClock(now))
            let replay = [
                starts("replayed", at: happened),
                FeedEvent(id: "goal-replayed", game: "replayed", seq: 2, occurredAt: happened.addingTimeInterval(600), kind: .score,
                          scoreboard: ScoreboardUpdate(home: 1, away: 0), team: .home),
            ]
            let report = try await ingestor.ingest(replay, feed: "f")
            #expect(report.accepted == 2)

            let duty = AbandonedGamesDuty(pool: fixture.pool, interval: .seconds(60), timeout: .seconds(12 * 3_600))
            // The poller's next round, and one just short of the timeout: the events arrived now.
            #expect(try await duty.run(at: now.addingTimeInterval(60))["retired"] == 0)
            #expect(try await duty.run(at: now.addingTimeInterval(12 * 3_600 - 1))["retired"] == 0)
            #expect(try await fixture.pool.query("SELECT status FROM games WHERE id = 'replayed'")[0].decode("status", as: String.self) == "live")
            // Twelve hours after they arrived with nothing since, the game is abandoned.
            #expect(try await duty.run(at: now.addingTimeInterval(12 * 3_600 + 1))["retired"] == 1)
            #expect(try await fixture.pool.query("SELECT status FROM games WHERE id = 'replayed'")[0].decode("status", as: String.self) == "cancelled")
        }
    }
}
