import APNsCore
import DeliveryEngine
import Foundation
import HTTPServer
import JSON
import Postgres
import ScorecastCore
@testable import Statistics
import Testing
import TestSupport

/// The dashboard's game view (`/v1/games/{id}/live`), the apps' channel usage and the
/// alerting-only latency, checked against the rows written.
@Suite struct GameLiveTests {
    func query(_ db: PollerDatabase) -> StatsQuery {
        StatsQuery(pool: db.pool, budgetProfiles: BudgetProfiles(standardPerHour: 12, frequentPerHour: 60), channelLimit: 4)
    }

    @Test func theGameViewShowsItsChannelsDeliveriesBudgetsAndPendingAlerts() async throws {
        try await PollerDatabase.with { db in
            let now = pollerTestNow
            let scores = try await db.addApp()
            let other = try await db.addApp("com.example.other")
            try await db.addGame("g1")
            try await db.addGame("g2")
            let first = try await db.addChannel(appID: scores, game: "g1", apnsID: "chan-1")
            let second = try await db.addChannel(appID: other, game: "g1", apnsID: "chan-2")
            let deleted = try await db.addChannel(appID: scores, game: "g1", status: "deleted", apnsID: "chan-3")
            let elsewhere = try await db.addChannel(appID: scores, game: "g2", apnsID: "chan-4")

            // 30 attempts to the game's channels over the last 5 minutes, then 5 newer ones to another game's.
            var rows: [DeliverySpec] = []
            for i in 0..<30 {
                rows.append(DeliverySpec(
                    channelID: i.isMultiple(of: 3) ? second : first, appID: i.isMultiple(of: 3) ? other : scores,
                    sentAt: now.addingTimeInterval(Double(-300 + i * 5)), priority: i.isMultiple(of: 2) ? 10 : 5))
            }
            for i in 0..<5 { rows.append(DeliverySpec(channelID: elsewhere, appID: scores, sentAt: now.addingTimeInterval(Double(-10 + i)))) }
            try await db.insert(rows)
            // What the workers' completion appends beside each accepted priority-10 delivery.
            try await db.pool.execute("""
                INSERT INTO budget_ledger (channel_id, at, kind)
                SELECT channel_id, sent_at, 'priority10' FROM deliveries WHERE priority = 10 AND outcome = 'sent'
                """)

            // chan-1 owes two announcements (queued out of order), chan-2 only has a state update waiting.
            try await db.addOutbox(channelID: first, dueAt: now)
            try await db.addOutbox(channelID: second, dueAt: now)
            let goal = QueuedAlert(key: "41", alert: LiveActivityAlert(title: .plain("Goal!"), body: .plain("Saka 67'")), queuedAt: now.addingTimeInterval(-4))
            let card = QueuedAlert(key: "40", alert: LiveActivityAlert(title: .localized(key: "RED_CARD", arguments: ["Rice"])), queuedAt: now.addingTimeInterval(-9))
            try await db.pool.execute("UPDATE outbox SET alerts = \(QueuedAlert.encodedQueue([goal, card]))::jsonb WHERE channel_id = \(first)")

            let view = try #require(try await query(db).gameLive("g1", now: now))
            #expect(view.game.game == "g1" && view.game.status == "live")
            #expect(view.game.channels == 2, "active and retiring channels only")
            #expect(view.channels.map(\.channel) == ["chan-1", "chan-2", "chan-3"])
            #expect(view.channels.map(\.app) == ["com.example.scores", "com.example.other", "com.example.scores"])
            #expect(view.channels.map(\.status) == ["active", "active", "deleted"])
            #expect(view.channels.map(\.pendingUpdate) == [true, true, false])

            // Budgets: the accepted priority-10 sends of each channel (all in the last 5 minutes).
            for (channel, id) in [("chan-1", first), ("chan-2", second), ("chan-3", deleted)] {
                let sent10 = try await db.count("SELECT count(*)::int FROM deliveries WHERE channel_id = \(id) AND priority = 10 AND outcome = 'sent'")
                let budget = try #require(view.channels.first { $0.channel == channel }?.budget)
                #expect(budget.priority10Used == sent10, "\(channel)")
                #expect(budget.priority10Limit == 12)
            }
            #expect(view.channels[0].budget?.priority10Used == 10 && view.channels[1].budget?.priority10Used == 5)

            // Deliveries: the 25 newest of the game's channels only, newest first.
            let expected = try await db.pool.query("""
                SELECT c.apns_channel_id, d.sent_at FROM deliveries d JOIN channels c ON c.id = d.channel_id
                WHERE d.channel_id IN (\(first), \(second), \(deleted)) ORDER BY d.sent_at DESC, d.id DESC LIMIT 25
                """).map { (try $0.decode("apns_channel_id", as: String.self), try $0.decode("sent_at", as: Date.self)) }
            #expect(view.recentDeliveries.count == 25)
            #expect(view.recentDeliveries.map(\.channel) == expected.map(\.0))
            #expect(view.recentDeliveries.map(\.at) == expected.map(\.1))
            #expect(view.recentDeliveries.allSatisfy { $0.game == "g1" })

            // Pending alerts: oldest first, as the device would show them.
            #expect(view.pendingAlerts == [
                PendingAlert(channel: "chan-1", event: "40", text: "RED_CARD (Rice)", queuedAt: now.addingTimeInterval(-9)),
                PendingAlert(channel: "chan-1", event: "41", text: "Goal! — Saka 67'", queuedAt: now.addingTimeInterval(-4)),
            ])

            #expect(try await query(db).gameLive("nope", now: now) == nil)
        }
    }

    /// The game view draws each team with the game's stored identity (the registered code, the
    /// feed's colours filling the rest), and reads a face sent with an app's renamed keys
    /// through that app's mapping.
    @Test func theGameViewCarriesTheStoredIdentityAndReadsRenamedKeys() async throws {
        try await PollerDatabase.with { db in
            let now = pollerTestNow
            let app = try await db.addApp()
            try await db.pool.execute("""
                UPDATE apps SET content_state_mapping = '{"rename": {"homeScore": "h", "awayScore": "a", "scorers": "goals"}}'::jsonb
                WHERE id = \(app)
                """)
            var state = GameState(status: .live, homeScore: 2, awayScore: 1, appliedSeq: 3)
            state.teams = [.home: TeamIdentity(code: "XXX", primaryColour: "#C8102E", secondaryColour: "#FFFFFF"), .away: TeamIdentity(code: "CFC")]
            try await db.addGame("g1", state: try state.jsonValue.encodedString())
            try await db.pool.execute("UPDATE games SET home_code = 'NBU' WHERE id = 'g1'")
            let channel = try await db.addChannel(appID: app, game: "g1", apnsID: "chan-1")
            let shown = #"{"aps": {"timestamp": 1764447290, "event": "update", "content-state": {"status": "live", "h": 2, "a": 1, "goals": [{"team": "home", "player": "Bell", "minute": 12, "ownGoal": false, "penalty": false}], "cards": [], "extra": {}, "updatedAt": 0, "version": 2}}}"#
            try await db.pool.execute("UPDATE channels SET shown_payload = \(shown), shown_at = \(now) WHERE id = \(channel)")

            let view = try #require(try await query(db).gameLive("g1", now: now))
            #expect(view.game.homeIdentity == LiveTeamIdentity(code: "NBU", primaryColour: "#C8102E", secondaryColour: "#FFFFFF"))
            #expect(view.game.awayIdentity == LiveTeamIdentity(code: "CFC", primaryColour: "#8E8E93", secondaryColour: "#FFFFFF"))
            let face = try #require(view.channels.first?.face)
            #expect(face.homeScore == 2 && face.awayScore == 1 && face.homeScorers == ["Bell 12'"])
        }
    }

    @Test func theLiveSnapshotCountsEveryAppsChannelsAgainstTheLimit() async throws {
        try await PollerDatabase.with { db in
            let scores = try await db.addApp()
            let other = try await db.addApp("com.example.other")
            _ = try await db.addApp("com.example.empty")
            for status in ["active", "active", "active", "retiring", "deleted", "gone"] { try await db.addChannel(appID: scores, status: status) }
            try await db.addChannel(appID: other)

            let usage = try await query(db).live(now: pollerTestNow).channelUsage
            #expect(usage.map(\.app) == ["com.example.scores", "com.example.other", "com.example.empty"])
            for app in usage {
                let counted = try await db.count("""
                    SELECT count(*)::int FROM channels c JOIN apps a ON a.id = c.app_id
                    WHERE a.bundle_id = \(app.app) AND c.status IN ('active', 'retiring')
                    """)
                #expect(app.channels.used == counted, "\(app.app)")
                #expect(app.channels.limit == 4)
            }
            // 4 of 4 is at the limit (warned from 80 %); 1 of 4 is not.
            #expect(usage[0].channels.active == 3 && usage[0].channels.retiring == 1 && usage[0].channels.remaining == 0 && usage[0].channels.nearLimit)
            #expect(usage[1].channels.used == 1 && !usage[1].channels.nearLimit)
            #expect(usage[2].channels.used == 0)
        }
    }

    @Test func alertingLatencyLeavesRoutineUpdatesOut() async throws {
        try await PollerDatabase.with { db in
            let app = try await db.addApp()
            let channel = try await db.addChannel(appID: app)
            var rows: [DeliverySpec] = []
            // 20 alerting updates sent within 8–27 ms of ingest (one downgraded to 5), 80 routine ones held 2–3 s.
            for i in 0..<20 {
                rows.append(DeliverySpec(channelID: channel, appID: app, sentAt: pollerTestNow.addingTimeInterval(-120), priority: i == 0 ? 5 : 10,
                                         requestedPriority: 10, downgraded: i == 0, ingestLatency: Double(8 + i)))
            }
            for i in 0..<80 {
                rows.append(DeliverySpec(channelID: channel, appID: app, sentAt: pollerTestNow.addingTimeInterval(-60), priority: 5,
                                         requestedPriority: 5, ingestLatency: Double(2_000 + i * 10)))
            }
            try await db.insert(rows)
            let latency = try await query(db).overview(window: .default, now: pollerTestNow).totals.latency
            let alerting = try #require(latency.alertingIngestToSend)
            #expect(alerting.samples == 20)
            let sorted = (0..<20).map { Double(8 + $0) }
            #expect(alerting.p50Ms == Percentile.value(ofSorted: sorted, at: 0.5))
            #expect(alerting.p99Ms == Percentile.value(ofSorted: sorted, at: 0.99))
            #expect(latency.ingestToSend.samples == 100)
            #expect((latency.ingestToSend.p99Ms ?? 0) > 2_000, "all updates include the routine ones held back")
        }
    }
}
