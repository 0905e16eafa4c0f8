import Clocks
import DeliveryEngine
import Foundation
import HTTPServer
import Postgres
import PrometheusMetrics
import ScorecastCore
@testable import Server
@testable import ServiceBase
@testable import Statistics
import TestSupport
import TestSupport
import Testing

/// Parses an exposition with the Python reference client and prints `name labels value` JSON.
private let referenceParser = """
    import json, sys
    try:
        from prometheus_client.parser import text_string_to_metric_families
    except ImportError:
        sys.stderr.write("python package prometheus-client is missing: pip install -r Deploy/requirements-test.txt\\n")
        sys.exit(3)
    out = []
    for family in text_string_to_metric_families(sys.stdin.read()):
        for sample in family.samples:
            out.append({"name": sample.name, "type": family.type, "labels": sample.labels, "value": sample.value})
    print(json.dumps(out))
    """

private struct Sample: Decodable {
    var name: String
    var type: String
    var labels: [String: String]
    var value: Double
}

/// The statistics endpoints' contract beyond the figures: errors, the live snapshot, the
/// dashboard page and `/metrics`.
@Suite struct StatsEndpointsTests {
    func router(_ db: PollerDatabase, metrics: (ScorecastMetrics, MetricsRegistry)? = nil, scrapedAt: Date = pollerTestNow) throws -> Router {
        var router = Router()
        let registry = metrics?.1 ?? MetricsRegistry()
        // The gauges' values are what these tests check: a loaded machine's slow read must not
        // turn into the last values (a database that does not answer is the fault tests'), so
        // only a hang bounds it.
        let refresher = try metrics.map {
            try MetricsRefresher(pool: db.pool, metrics: $0.0, registry: $0.1, clock: ManualServiceClock(scrapedAt), readDeadline: hangDeadline)
        }
        StatsEndpoints(
            query: StatsQuery(pool: db.pool, budgetProfiles: BudgetProfiles(standardPerHour: 12, frequentPerHour: 60), channelLimit: 4),
            registry: registry, refresher: refresher, clock: ManualServiceClock(pollerTestNow)
        ).register(on: &router)
        return router
    }

    @Test func badInputIsNamedAndUnknownThingsAreNotFound() async throws {
        try await PollerDatabase.with { db in
            let router = try router(db)
            let bad = try await getStatus(router, "/v1/stats", query: ["window": "15x"])
            #expect(bad.status == 400 && bad.body.contains("\"field\":\"window\"") && bad.body.contains("15x"))
            #expect(try await getStatus(router, "/v1/stats", query: ["window": "8d"]).status == 400)
            #expect(try await getStatus(router, "/v1/channels/999/stats").status == 404)
            #expect(try await getStatus(router, "/v1/channels/no-such-channel/stats").status == 404)
            #expect(try await getStatus(router, "/v1/games/nope/stats").status == 404)
            #expect(try await getStatus(router, "/v1/apps/com.example.none/stats").status == 404)
            try await db.addApp("com.example.twice")
            try await db.pool.execute("""
                INSERT INTO apps (bundle_id, environment, team_id, key_id, key_path)
                VALUES ('com.example.twice', 'production', 'TEAM123456', 'KEY1234567', '/k.p8')
                """)
            let ambiguous = try await getStatus(router, "/v1/apps/com.example.twice/stats")
            #expect(ambiguous.status == 400 && ambiguous.body.contains("environment"))
            #expect(try await getStatus(router, "/v1/apps/com.example.twice/stats", query: ["environment": "production"]).status == 200)
            #expect(try await getStatus(router, "/v1/apps/com.example.twice/stats", query: ["environment": "staging"]).status == 400)
            let week = try await getJSON(router, "/v1/stats", query: ["window": "7d"], as: StatsResponse.self)
            #expect(week.series.count == 168 && week.totals.sends.total == 0)
        }
    }

    @Test func theLiveSnapshotListsGamesHotBudgetsAndTheLatestDeliveries() async throws {
        try await PollerDatabase.with { db in
            let app = try await db.addApp()
            let state = #"{"status":"live","homeScore":2,"awayScore":1,"period":"2H","clock":"67'","extra":{},"appliedSeq":7,"lastEvent":{"id":"e7","kind":"score","occurredAt":1772367000,"description":"Goal! Saka"}}"#
            try await db.addGame("live-game", status: "live", state: state)
            try await db.pool.execute("UPDATE games SET applied_seq = 7, last_event_at = \(pollerTestNow.addingTimeInterval(-220)) WHERE id = 'live-game'")
            try await db.addGame("old-game", status: "final", finishedAt: pollerTestNow.addingTimeInterval(-86_400))
            let hot = try await db.addChannel(appID: app, game: "live-game")
            let cool = try await db.addChannel(appID: app, game: "live-game")
            // The ledger of the hour ending now: 11 priority-10 sends (hot), 2 (cool); the hot
            // channel's sends straddle the clock hour, and one left the rolling hour. Its 3
            // downgrades are in its delivery records below.
            let hotSends = (0..<11).map { pollerTestNow.addingTimeInterval(Double(-300 * $0) - 1) } + [pollerTestNow.addingTimeInterval(-3601)]
            for at in hotSends { try await db.pool.execute("INSERT INTO budget_ledger (channel_id, at, kind) VALUES (\(hot), \(at), 'priority10')") }
            for at in [-40.0, -50].map(pollerTestNow.addingTimeInterval) {
                try await db.pool.execute("INSERT INTO budget_ledger (channel_id, at, kind) VALUES (\(cool), \(at), 'priority10')")
            }
            var rows: [DeliverySpec] = []
            for index in 0..<30 {
                let channel = index % 2 == 0 ? hot : cool
                var row = DeliverySpec(channelID: channel, appID: app, sentAt: pollerTestNow.addingTimeInterval(Double(-index)))
                if index == 0 {
                    row.outcome = "retry"
                    row.statusCode = 429
                    row.reason = "TooManyRequests"
                }
                if (channel == hot && index >= 24) || (channel == cool && index > 3) { row.priority = 5 }
                // The hot channel's last three sends at 5 were alerts downgraded.
                if channel == hot && index >= 24 { row.downgraded = true }
                rows.append(row)
            }
            // A downgrade that left the rolling hour counts no more.
            var old = DeliverySpec(channelID: hot, appID: app, sentAt: pollerTestNow.addingTimeInterval(-3601))
            old.priority = 5
            old.downgraded = true
            rows.append(old)
            try await db.insert(rows)
            let live = try await getJSON(router(db), "/v1/stats/live", as: LiveStatsResponse.self)
            #expect(live.games.map(\.game) == ["live-game"])
            let game = try #require(live.games.first)
            #expect(game.homeScore == 2 && game.awayScore == 1 && game.period == "2H" && game.clock == "67'")
            #expect(game.lastEvent == "Goal! Saka" && game.seq == 7 && game.channels == 2)
            #expect(live.budgets.map(\.priority10Used) == [11, 2])
            #expect(live.budgets.first?.downgrades == 3 && live.budgets.first?.remaining == 1 && live.budgets.first?.game == "live-game")
            #expect(live.backlog != nil, "the backlog is reported")
            #expect(live.recentDeliveries.count == 25)
            #expect(live.recentDeliveries.map(\.at) == live.recentDeliveries.map(\.at).sorted(by: >))
            #expect(live.recentDeliveries.first?.outcome == .retried && live.recentDeliveries.first?.reason == "TooManyRequests")
            #expect(live.recentDeliveries.dropFirst().allSatisfy { $0.outcome == .accepted })
        }
    }

    @Test func theDashboardIsServedWithItsPolicy() async throws {
        try await PollerDatabase.with { db in
            let response = try await router(db).respond(to: HTTPRequest(method: .get, path: "/dashboard"))
            #expect(response.status == .ok)
            #expect(response.headers["Content-Type"] == "text/html; charset=utf-8")
            #expect(response.headers["Content-Security-Policy"] == DashboardPage.contentSecurityPolicy)
            #expect(String(decoding: response.body, as: UTF8.self).contains("v1/stats?window=15m"))
        }
    }

    @Test func metricsCarryTheDatabaseGaugesAndParseWithTheReferenceParser() async throws {
        try await PollerDatabase.with { db in
            let app = try await db.addApp()
            let other = try await db.addApp("com.example.other")
            let channels = [
                try await db.addChannel(appID: app), try await db.addChannel(appID: app), try await db.addChannel(appID: app, status: "retiring"),
                try await db.addChannel(appID: app, status: "deleted"), try await db.addChannel(appID: other),
            ]
            // The gauges are read at the service clock's time, far from the database's.
            let now = pollerTestNow
            try await db.addOutbox(channelID: channels[0], dueAt: now.addingTimeInterval(-90))
            try await db.addOutbox(channelID: channels[1], dueAt: now.addingTimeInterval(-10), leaseOwner: "w", leaseExpiresAt: now.addingTimeInterval(30))
            try await db.addOutbox(channelID: channels[4], dueAt: now.addingTimeInterval(60))
            // Budgets over the last hour: the first channel spent its 12, the second used 1 of
            // them, the other app's channel is barred by a 429 for another 30 s.
            for at in (1...12).map({ now.addingTimeInterval(Double(-60 * $0)) }) + [now.addingTimeInterval(-5)] {
                let channel = at == now.addingTimeInterval(-5) ? channels[1] : channels[0]
                try await db.pool.execute("INSERT INTO budget_ledger (channel_id, at, kind) VALUES (\(channel), \(at), 'priority10')")
            }
            try await db.pool.execute("""
                INSERT INTO budget_ledger (channel_id, at, kind, limit_after, barred_until)
                VALUES (\(channels[4]), \(now.addingTimeInterval(-30)), 'throttled', 6, \(now.addingTimeInterval(30)))
                """)
            let registry = MetricsRegistry()
            let metrics = try ScorecastMetrics(registry: registry)
            metrics.broadcastsSent.increment(SendLabels(app: "com.example.scores", outcome: .accepted, priority: .immediate), by: 5)
            let response = try await router(db, metrics: (metrics, registry), scrapedAt: now).respond(to: HTTPRequest(method: .get, path: "/metrics"))
            #expect(response.status == .ok)
            #expect(response.headers["Content-Type"] == MetricsRegistry.contentType)

            let result = try await ExternalTool.run("python3", ["-c", referenceParser], stdin: Data(response.body), timeout: .seconds(30))
            #expect(result.status == 0, "prometheus_client refused the exposition: \(result.stderr)")
            guard result.status == 0 else { return }
            let samples = try JSONDecoder().decode([Sample].self, from: Data(result.stdout.utf8))
            func value(_ name: String, _ labels: [String: String] = [:]) -> Double? {
                samples.first { $0.name == name && $0.labels == labels }?.value
            }
            #expect(value("scorecast_outbox_pending") == 3)
            #expect(value("scorecast_outbox_leased") == 1)
            #expect(value("scorecast_outbox_oldest_pending_age_seconds") == 90)
            #expect(value("scorecast_channels", ["app": "com.example.scores"]) == 3)
            #expect(value("scorecast_channels", ["app": "com.example.other"]) == 1)
            #expect(value("scorecast_channels_budget_spent", ["app": "com.example.scores"]) == 1)
            #expect(value("scorecast_channels_budget_spent", ["app": "com.example.other"]) == 1)
            #expect(value("scorecast_broadcasts_sent_total", ["app": "com.example.scores", "outcome": "accepted", "priority": "10"]) == 5)
            // The process's memory, read at scrape time (how it follows allocations: ProcessMemoryTests).
            let heapInUse = try #require(value("scorecast_heap_in_use_bytes"))
            let heapReserved = try #require(value("scorecast_heap_reserved_bytes"))
            #expect(heapInUse > Double(1 << 20) && heapInUse <= heapReserved, "\(heapInUse) of \(heapReserved)")
            #expect(try #require(value("process_resident_memory_bytes")) > Double(1 << 20))
            // Bounded labels only: never a channel id.
            let channelIDs = try await db.pool.query("SELECT apns_channel_id FROM channels").map { try $0.decode("apns_channel_id", as: String.self) }
            #expect(!samples.contains { sample in sample.labels.values.contains { channelIDs.contains($0) } })
        }
    }
}
