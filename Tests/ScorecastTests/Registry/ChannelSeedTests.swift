import Clocks
import Foundation
import JSON
import Postgres
@testable import Registry
import ScorecastCore
import ScorecastLogging
import TestSupport
import Testing

/// A new channel gets its game's current state at once (create, ensure, or re-created after
/// APNs said it was gone), instead of waiting for the game's next event.
@Suite struct ChannelSeedTests {
    static func ingestGoals(_ fixture: RegistryFixture) async throws {
        let ingestor = EventIngestor(pool: fixture.pool, settings: IngestSettings(), logger: Logger(label: "ingest", level: .error))
        let body = Array(#"""
            {"events": [
              {"id": "k", "game": "g1", "seq": 1, "occurredAt": "2025-11-29T20:00:00Z", "kind": "start"},
              {"id": "s1", "game": "g1", "seq": 2, "occurredAt": "2025-11-29T20:12:00Z", "kind": "score", "team": "home", "scoreboard": {"home": 1, "away": 0, "clock": "12'"}},
              {"id": "s2", "game": "g1", "seq": 3, "occurredAt": "2025-11-29T20:40:00Z", "kind": "score", "team": "away", "scoreboard": {"home": 1, "away": 1, "clock": "40'"}}
            ]}
            """#.utf8)
        _ = try await ingestor.ingest(try FeedEventValidator().events(fromBody: body, now: Date()), feed: "test")
    }

    static func seedRow(_ fixture: RegistryFixture, channel: Int64) async throws -> (aps: JSONValue, priority: Int, alerts: Int)? {
        guard let row = try await fixture.pool.query("""
            SELECT payload, priority, jsonb_array_length(alerts) AS alerts FROM outbox WHERE channel_id = \(channel)
            """).first else { return nil }
        let payload = try JSONParser().parse([UInt8](try row.decode("payload", as: Data.self)))
        return (payload["aps"] ?? .null, try row.decode("priority"), try row.decode("alerts"))
    }

    @Test func aChannelCreatedMidGameIsSeededWithTheCurrentState() async throws {
        try await RegistryFixture.with { fixture in
            let app = try await fixture.addApp()
            try await fixture.addGame()
            try await Self.ingestGoals(fixture)
            let created = try await fixture.registry().createChannel(gameID: "g1", app: app)
            let seed = try #require(try await Self.seedRow(fixture, channel: created.listing.channel.id))
            #expect(seed.aps["content-state"]?["homeScore"]?.integerValue == 1)
            #expect(seed.aps["content-state"]?["awayScore"]?.integerValue == 1)
            #expect(seed.aps["content-state"]?["clock"]?["label"]?.stringValue == "40'")
            #expect(seed.aps["timestamp"]?.integerValue == 1_764_448_800, "the last event's time")
            #expect(seed.aps["alert"] == nil && seed.alerts == 0, "the state, not a replay of old goals")
            #expect(seed.priority == 5)
        }
    }

    @Test func aSeedFallsDueAndAGameIsAddedAtTheRegistrysClock() async throws {
        try await RegistryFixture.with { fixture in
            let app = try await fixture.addApp()
            let at = Date(timeIntervalSince1970: 1_795_993_200)
            let registry = fixture.registry(clock: ManualServiceClock(at))
            let game = try await registry.games.add(GameDraft(id: "g1", league: "EPL", homeTeam: "Arsenal", awayTeam: "Chelsea", startsAt: at))
            #expect(game.createdAt == at)
            try await Self.ingestGoals(fixture)
            let created = try await registry.createChannel(gameID: "g1", app: app)
            // The workers claim by the service clock: a seed dated by the database's would wait
            // for it (or jump the queue) whenever the two disagree.
            let row = try #require(try await fixture.pool.query(
                "SELECT due_at, first_ingested_at FROM outbox WHERE channel_id = \(created.listing.channel.id)").first)
            #expect(try row.decode("due_at", as: Date.self) == at)
            #expect(try row.decode("first_ingested_at", as: Date.self) == at)
        }
    }

    @Test func ensureSeedsToo_andAGameWithoutEventsIsNotSeeded() async throws {
        try await RegistryFixture.with { fixture in
            _ = try await fixture.addApp()
            try await fixture.addGame("g1")
            try await fixture.addGame("g2")
            try await Self.ingestGoals(fixture)
            let registry = fixture.registry()
            let seeded = try #require(try await registry.ensureChannels(gameID: "g1").created.first)
            #expect(try await Self.seedRow(fixture, channel: seeded.channel.id)?.aps["content-state"]?["awayScore"]?.integerValue == 1)
            let quiet = try #require(try await registry.ensureChannels(gameID: "g2").created.first)
            #expect(try await Self.seedRow(fixture, channel: quiet.channel.id) == nil)
        }
    }
}
