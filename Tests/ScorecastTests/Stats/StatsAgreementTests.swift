import Clocks
import DeliveryEngine
import Foundation
import HTTPServer
import Postgres
import PrometheusMetrics
import ScorecastCore
@testable import Server
@testable import Statistics
import Testing

/// After a scripted run, every figure of `/v1/stats` (and of the app, game and channel
/// answers) agrees with the `deliveries` and `events` tables, computed independently here.
@Suite struct StatsAgreementTests {
    struct Script {
        var db: PollerDatabase
        var appA: Int64
        var appB: Int64
        var channelA1: Int64
        var channelA2: Int64
        var channelB1: Int64
        var deliveries: [DeliverySpec] = []
        var events: [String: [ExpectedFigures.Event]] = [:]
        var tallied: [ExpectedFigures.Event] = []
        var rescuedAt: Date
    }

    /// Two apps, three channels, two games; ~240 deliveries over 12:08–12:30, events, ingest
    /// tallies and a rescued lease; the roll-up run at 12:30:20 (settling minutes before 12:29).
    func script(_ db: PollerDatabase) async throws -> Script {
        let now = pollerTestNow
        let appA = try await db.addApp("com.example.scores")
        let appB = try await db.addApp("com.example.other", frequentUpdates: true)
        try await db.addGame("g1")
        try await db.addGame("g2")
        var script = Script(
            db: db, appA: appA, appB: appB,
            channelA1: try await db.addChannel(appID: appA, game: "g1", apnsID: "QTEv+Y2hh/bm5l=="), channelA2: try await db.addChannel(appID: appA, game: "g1"),
            channelB1: try await db.addChannel(appID: appB, game: "g2"), rescuedAt: now.addingTimeInterval(-300))
        var random = ScriptedRandom(seed: 42)
        let channels = [(script.channelA1, appA), (script.channelA2, appA), (script.channelB1, appB)]
        let failures: [(String, Int32?, String?)] = [
            ("retry", 429, "TooManyRequests"), ("retry", 503, "ServiceUnavailable"), ("retry", nil, "Timeout"),
            ("failed", 400, "BadPriority"), ("gone", 410, "ChannelNotRegistered"), ("paused", 403, "InvalidProviderToken"),
            ("retry", 500, nil),
        ]
        for index in 0..<240 {
            let (channel, app) = channels[random.next(3)]
            let at = now.minuteStart.addingTimeInterval(-22 * 60 + Double(random.next(22 * 60 + 20)))
            var row = DeliverySpec(channelID: channel, appID: app, sentAt: at)
            if random.next(4) == 0 {
                let failure = failures[random.next(failures.count)]
                row.outcome = failure.0
                row.statusCode = failure.1
                row.reason = failure.2
            }
            row.priority = random.next(3) == 0 ? 5 : 10
            row.downgraded = row.priority == 5 && random.next(2) == 0
            row.coalesced = Int32(random.next(4))
            row.attempt = Int32(1 + random.next(2))
            row.apnsLatency = row.statusCode == nil ? nil : Double(random.next(4000)) / 100
            row.ingestLatency = index % 17 == 0 ? nil : Double(random.next(20_000)) / 100
            script.deliveries.append(row)
        }
        try await db.insert(script.deliveries)
        for (game, count) in [("g1", 30), ("g2", 12)] {
            let events = (0..<count).map { _ in
                (at: now.minuteStart.addingTimeInterval(-20 * 60 + Double(random.next(20 * 60 + 20))), outcome: random.next(5) == 0 ? "stale" : "accepted")
            }
            try await db.insertEvents(game: game, at: events.map { ($0.at, $0.outcome) })
            script.events[game] = events
        }
        for (minutesAgo, duplicates, rejected) in [(14, 2, 1), (3, 1, 0), (0, 0, 2), (25, 5, 5)] {
            let at = now.minuteStart.addingTimeInterval(Double(-minutesAgo * 60) + 7)
            try await IngestTally(pool: db.pool).record(duplicates: duplicates, rejected: rejected, at: at)
            script.tallied += Array(repeating: (at, "duplicate"), count: duplicates) + Array(repeating: (at, "rejected"), count: rejected)
        }
        try await db.addOutbox(channelID: script.channelA2, dueAt: script.rescuedAt.addingTimeInterval(-60), leaseOwner: "dead",
                               leaseExpiresAt: script.rescuedAt.addingTimeInterval(-1))
        #expect(try await LeaseRescueDuty(pool: db.pool, interval: .seconds(10)).run(at: script.rescuedAt)["rescued"] == 1)
        _ = try await StatsRollupDuty(pool: db.pool, interval: .seconds(10)).run(at: now)
        return script
    }

    func router(_ db: PollerDatabase) -> Router {
        var router = Router()
        StatsEndpoints(
            query: StatsQuery(pool: db.pool, budgetProfiles: BudgetProfiles(standardPerHour: 12, frequentPerHour: 60), channelLimit: 10_000),
            registry: MetricsRegistry(), refresher: nil, clock: ManualServiceClock(pollerTestNow)
        ).register(on: &router)
        return router
    }

    @Test func everyFigureOfTheOverviewAgreesWithTheTables() async throws {
        try await PollerDatabase.with { db in
            let script = try await script(db)
            let answer = try await getJSON(router(db), "/v1/stats", query: ["window": "15m"], as: StatsResponse.self)
            let span = StatsSpan(window: .default, now: pollerTestNow)
            #expect(answer.from == span.from && answer.to == span.to && answer.bucketSeconds == 60)
            #expect(answer.series.map(\.start) == span.bucketStarts)

            let inWindow = { (date: Date) in date >= span.from && date < span.to }
            let allEvents = script.events.values.flatMap { $0 } + script.tallied
            ExpectedFigures.check(
                answer.totals, deliveries: script.deliveries.filter { inWindow($0.sentAt) },
                events: allEvents.filter { inWindow($0.at) }, rescued: 1, label: "totals")
            for bucket in answer.series {
                let inBucket = { (date: Date) in date >= bucket.start && date < bucket.start.addingTimeInterval(60) }
                ExpectedFigures.check(
                    bucket.figures, deliveries: script.deliveries.filter { inBucket($0.sentAt) },
                    events: allEvents.filter { inBucket($0.at) }, rescued: inBucket(script.rescuedAt) ? 1 : 0,
                    label: "bucket \(bucket.start)")
            }
            // And by plain SQL on the table.
            let attempts = try await db.count("SELECT count(*)::int FROM deliveries WHERE sent_at >= \(span.from) AND sent_at < \(span.to)")
            #expect(answer.totals.sends.total == attempts)
            #expect(attempts > 100)
        }
    }

    @Test func theScopedAnswersAgreeWithTheirRows() async throws {
        try await PollerDatabase.with { db in
            let script = try await script(db)
            let router = router(db)
            let span = StatsSpan(window: .default, now: pollerTestNow)
            let inWindow = { (date: Date) in date >= span.from && date < span.to }
            let deliveries = script.deliveries.filter { inWindow($0.sentAt) }

            let app = try await getJSON(router, "/v1/apps/com.example.scores/stats", as: AppStatsResponse.self)
            ExpectedFigures.check(
                app.totals, deliveries: deliveries.filter { $0.appID == script.appA },
                events: (script.events["g1"] ?? []).filter { inWindow($0.at) }, rescued: 1, label: "app A")
            #expect(app.channels.active == 2 && app.channels.used == 2 && app.channels.limit == 10_000 && !app.channels.nearLimit)

            let game = try await getJSON(router, "/v1/games/g2/stats", as: GameStatsResponse.self)
            ExpectedFigures.check(
                game.totals, deliveries: deliveries.filter { $0.channelID == script.channelB1 },
                events: (script.events["g2"] ?? []).filter { inWindow($0.at) }, label: "game g2")
            #expect(game.channels.count == 1 && game.channels.first?.priority10Limit == 60)   // frequent-updates profile
            for bucket in game.series {
                let inBucket = { (date: Date) in date >= bucket.start && date < bucket.start.addingTimeInterval(60) }
                ExpectedFigures.check(
                    bucket.figures, deliveries: deliveries.filter { $0.channelID == script.channelB1 && inBucket($0.sentAt) },
                    events: (script.events["g2"] ?? []).filter { inBucket($0.at) }, label: "game g2 \(bucket.start)")
            }

            let channel = try await getJSON(router, "/v1/channels/\(script.channelA1)/stats", as: ChannelStatsResponse.self)
            ExpectedFigures.check(
                channel.totals, deliveries: deliveries.filter { $0.channelID == script.channelA1 },
                events: (script.events["g1"] ?? []).filter { inWindow($0.at) }, label: "channel A1")
            #expect(channel.game == "g1" && channel.status == "active" && channel.app == "com.example.scores")
            // APNs ids are base64 (with `/` and `+`): a client percent-encodes them into the path.
            let encoded = try #require(channel.channel.addingPercentEncoding(withAllowedCharacters: .alphanumerics))
            #expect(channel.channel == "QTEv+Y2hh/bm5l==")
            let byAPNsID = try await getJSON(router, "/v1/channels/\(encoded)/stats", as: ChannelStatsResponse.self)
            #expect(byAPNsID.totals == channel.totals)
        }
    }

    @Test func settledMinutesAreReadFromTheRollupsAndOthersLive() async throws {
        try await PollerDatabase.with { db in
            let script = try await script(db)
            let router = router(db)
            let before = try await getJSON(router, "/v1/stats", as: StatsResponse.self)
            let settledMinute = pollerTestNow.minuteStart.addingTimeInterval(-5 * 60)     // 12:25, settled
            let liveMinute = pollerTestNow.minuteStart                                   // 12:30, in progress
            // Rows vanish behind the roll-up's back: the settled minute keeps its rolled-up figures,
            // the live minute follows the table at once.
            try await db.pool.execute("DELETE FROM deliveries WHERE sent_at >= \(settledMinute) AND sent_at < \(settledMinute.addingTimeInterval(60))")
            try await db.pool.execute("DELETE FROM deliveries WHERE sent_at >= \(liveMinute)")
            let after = try await getJSON(router, "/v1/stats", as: StatsResponse.self)
            // (Latency percentiles are read exactly from the rows while a span is small enough,
            // so only the counts are the roll-up's here.)
            let bucket = { (answer: StatsResponse, start: Date) -> DeliveryFigures? in
                guard var figures = answer.series.first(where: { $0.start == start })?.figures else { return nil }
                figures.latency = .empty
                return figures
            }
            #expect(bucket(after, settledMinute) == bucket(before, settledMinute))
            #expect((bucket(before, settledMinute)?.sends.total ?? 0) > 0)
            #expect(bucket(after, liveMinute)?.sends.total == 0)
            #expect((bucket(before, liveMinute)?.sends.total ?? 0) == script.deliveries.filter { $0.sentAt >= liveMinute }.count)
        }
    }
}

/// Long spans estimate latency from the minutes; the counts stay exact.
@Suite struct StatsEstimateTests {
    @Test func beyondTheExactLimitCountsStayExactAndLatencyIsEstimatedWithinRange() async throws {
        try await PollerDatabase.with { db in
            let app = try await db.addApp()
            let channel = try await db.addChannel(appID: app)
            let now = pollerTestNow
            var rows: [DeliverySpec] = []
            for minute in 0..<5 {
                for index in 0..<10 {
                    rows.append(DeliverySpec(
                        channelID: channel, appID: app, sentAt: now.minuteStart.addingTimeInterval(Double(-minute * 60 + index)),
                        apnsLatency: Double(minute * 10 + index), ingestLatency: Double(100 + minute * 10 + index)))
                }
            }
            try await db.insert(rows)
            _ = try await StatsRollupDuty(pool: db.pool, interval: .seconds(10)).run(at: now)
            let span = StatsSpan(window: .default, now: now)
            let exact = try await FiguresReader(pool: db.pool).read(.all, span: span)
            let estimated = try await FiguresReader(pool: db.pool, exactLatencyLimit: 0).read(.all, span: span)
            var exactCounts = exact.totals, estimatedCounts = estimated.totals
            exactCounts.latency = .empty
            estimatedCounts.latency = .empty
            #expect(exactCounts == estimatedCounts)
            let latency = estimated.totals.latency.sendToAnswer
            #expect(latency.samples == 50)
            let p50 = try #require(latency.p50Ms)
            #expect(p50 >= 0 && p50 <= 49)
            // One-minute buckets are whole minutes: their estimate is the minute's exact value.
            for (left, right) in zip(exact.series, estimated.series) {
                #expect(left.figures.latency.sendToAnswer.p50Ms == right.figures.latency.sendToAnswer.p50Ms)
            }
        }
    }
}
