import DeliveryEngine
import Foundation
import JSON
import Registry
import ScorecastLogging
import ScorecastCore
import Statistics
import Testing
import TestSupport

/// What the fans see: the bodies APNs accepted, remembered per channel by the worker's
/// completion and read back by the game view (`/v1/games/{id}/live`) as an ``ActivityFace``.
@Suite struct ShownFaceTests {
    static func event(id: String, seq: Int, kind: String, home: Int, clock: String, extra: String = "") -> [UInt8] {
        Array(#"{"id": "\#(id)", "game": "g1", "seq": \#(seq), "occurredAt": "2025-11-29T20:\#(String(format: "%02d", seq)):00Z", "kind": "\#(kind)"\#(extra), "scoreboard": {"home": \#(home), "away": 0, "period": "1H", "clock": "\#(clock)"}}"#.utf8)
    }

    /// A goal (an alert, sent localized), then a yellow card (no alert): the game view shows the
    /// card's state, and still the goal's alert, its texts in English from the String Catalog.
    @Test func theGameViewShowsTheLastAcceptedStateAndTheLastAlertInEnglish() async throws {
        try await DeliveryHarness.with { harness in
            let channel = try await harness.createChannel()
            try await harness.pool.execute("INSERT INTO games (id, league, home_team, away_team) VALUES ('g1', 'Premier League', 'Arsenal', 'Chelsea')")
            try await harness.pool.execute("INSERT INTO channel_bindings (channel_id, game_id) VALUES (\(channel.id), 'g1')")
            let ingestor = EventIngestor(
                pool: harness.pool, settings: IngestSettings(shaping: ShapingPolicy(routineInterval: 0)),
                logger: Logger(label: "ingest", level: .warning))
            let query = StatsQuery(pool: harness.pool, budgetProfiles: BudgetProfiles(standardPerHour: 12, frequentPerHour: 60), channelLimit: 10)
            #expect(try await query.gameLive("g1", now: Date())?.channels.first?.face == nil, "nothing accepted yet")

            func deliver(_ body: [UInt8], sends: Int) async throws {
                _ = try await ingestor.ingest(try FeedEventValidator().events(fromBody: body, now: Date()), feed: "test")
                try await harness.running(harness.makePool(harness.settings(workers: 1))) {
                    try await eventually("the update is accepted") {
                        try await harness.outboxCount() == 0 && harness.broadcasts(to: channel.apnsID).count == sends
                    }
                }
            }
            try await deliver(Self.event(id: "e1", seq: 1, kind: "score", home: 1, clock: "12'", extra: #", "team": "home", "player": "Saka""#), sends: 1)
            // A yellow card is routine: a send without an alert.
            try await deliver(
                Self.event(id: "e2", seq: 2, kind: "card", home: 1, clock: "13'", extra: #", "team": "away", "player": "Rice", "card": "yellow""#),
                sends: 2)

            let received = harness.broadcasts(to: channel.apnsID)
            #expect(received.map(\.status) == [200, 200])
            // The phone got a localization key, not the English text: the view resolves it.
            let sentAlert = try JSONParser().parse(Array(received[0].body.utf8))["aps"]?["alert"]
            #expect(sentAlert?["title"]?["loc-key"]?.stringValue != nil, "\(received[0].body)")
            #expect(try JSONParser().parse(Array(received[1].body.utf8))["aps"]?["alert"] == nil)
            // Kept as APNs accepted them: the card's body byte for byte, and the goal's alert alone.
            let stored = try #require(try await harness.pool.query("SELECT shown_payload, alert_payload FROM channels WHERE id = \(channel.id)").first)
            #expect(try stored.decode("shown_payload", as: String?.self) == received[1].body)
            let storedAlert = try #require(try stored.decode("alert_payload", as: String?.self))
            #expect(try JSONParser().parse(Array(storedAlert.utf8)) == .object(["aps": .object(["alert": try #require(sentAlert)])]))

            let view = try #require(try await query.gameLive("g1", now: Date()))
            let face = try #require(view.channels.first?.face)
            #expect(face.event == "update" && face.status == "live")
            #expect(face.homeScore == 1 && face.awayScore == 0)
            #expect(face.period == "1H" && face.clock == "13'", "the card's state, the last accepted")
            #expect(face.homeScorers == ["Saka 12'"] && face.awayScorers.isEmpty)
            let alert = try #require(face.alert, "the goal's alert stays what the phones last showed")
            #expect(alert.title == "12' Goal: Saka (Arsenal)")
            #expect(alert.body == "Arsenal 1–0 Chelsea")
            #expect(alert.acceptedAt <= face.acceptedAt)
        }
    }
}
