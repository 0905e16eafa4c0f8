import Clocks
import Foundation
import Postgres
@testable import Server
@testable import Statistics
import Testing

/// Per-minute roll-ups against a real schema: checked row by row against figures computed
/// here, in Swift, from the scripted deliveries.
@Suite struct StatsRollupDutyTests {
    struct Minute: Equatable {
        var sent = 0, failed = 0, retried = 0, throttled = 0, gone = 0, paused = 0, downgraded = 0, coalesced = 0
        var priority10 = 0, priority5 = 0, ingestSamples = 0, apnsSamples = 0
        var ingestP50: Double?, ingestP99: Double?, apnsP95: Double?
    }

    /// What the roll-up of one minute and app must say, computed independently.
    static func expected(_ rows: [DeliverySpec]) -> Minute {
        var minute = Minute()
        for row in rows {
            switch row.outcome {
            case "sent": minute.sent += 1
            case "failed": minute.failed += 1
            case "retry": minute.retried += 1
            case "gone": minute.gone += 1
            default: minute.paused += 1
            }
            if row.statusCode == 429 { minute.throttled += 1 }
            if row.downgraded && row.outcome == "sent" { minute.downgraded += 1 }
            if ["sent", "failed", "gone"].contains(row.outcome) { minute.coalesced += Int(row.coalesced) }
            if row.priority == 10 { minute.priority10 += 1 } else { minute.priority5 += 1 }
        }
        let ingest = rows.compactMap(\.ingestLatency).sorted()
        let apns = rows.compactMap(\.apnsLatency).sorted()
        minute.ingestSamples = ingest.count
        minute.apnsSamples = apns.count
        minute.ingestP50 = interpolated(ingest, 0.5)
        minute.ingestP99 = interpolated(ingest, 0.99)
        minute.apnsP95 = interpolated(apns, 0.95)
        return minute
    }

    /// Continuous percentile by linear interpolation between ranks (what `percentile_cont` defines).
    static func interpolated(_ sorted: [Double], _ fraction: Double) -> Double? {
        guard !sorted.isEmpty else { return nil }
        let rank = fraction * Double(sorted.count - 1)
        let low = Int(rank), high = min(low + 1, sorted.count - 1)
        return sorted[low] + (sorted[high] - sorted[low]) * (rank - Double(low))
    }

    func stored(_ db: PollerDatabase) async throws -> [Date: Minute] {
        var result: [Date: Minute] = [:]
        for row in try await db.pool.query("SELECT * FROM stats_minute") {
            result[try row.decode("minute")] = Minute(
                sent: try row.decode("sent"), failed: try row.decode("failed"), retried: try row.decode("retried"),
                throttled: try row.decode("throttled"), gone: try row.decode("gone"), paused: try row.decode("paused"),
                downgraded: try row.decode("downgraded"), coalesced: try row.decode("coalesced"),
                priority10: try row.decode("priority_10"), priority5: try row.decode("priority_5"),
                ingestSamples: try row.decode("ingest_samples"), apnsSamples: try row.decode("apns_samples"),
                ingestP50: try row.decode("ingest_p50_ms", as: Double?.self), ingestP99: try row.decode("ingest_p99_ms", as: Double?.self),
                apnsP95: try row.decode("apns_p95_ms", as: Double?.self))
        }
        return result
    }

    @Test func minutesAreRolledUpExactlyIdempotentlyAndFollowTheirRows() async throws {
        try await PollerDatabase.with { db in
            let app = try await db.addApp()
            let channel = try await db.addChannel(appID: app)
            let now = pollerTestNow                                      // 12:30:20
            let m1 = now.minuteStart.addingTimeInterval(-300)            // 12:25
            let m2 = now.minuteStart.addingTimeInterval(-60)             // 12:29
            let m3 = now.minuteStart                                     // 12:30, in progress
            var rows: [DeliverySpec] = []
            for index in 0..<7 {
                rows.append(DeliverySpec(channelID: channel, appID: app, sentAt: m1.addingTimeInterval(Double(index) * 7),
                                         coalesced: Int32(index % 3), apnsLatency: Double(index) * 1.5 + 2, ingestLatency: Double(index * index) + 4))
            }
            rows.append(DeliverySpec(channelID: channel, appID: app, sentAt: m1.addingTimeInterval(50), outcome: "retry", coalesced: 4,
                                     statusCode: 429, reason: "TooManyRequests", apnsLatency: 9, ingestLatency: 30))
            rows.append(DeliverySpec(channelID: channel, appID: app, sentAt: m1.addingTimeInterval(51), outcome: "retry", coalesced: 4,
                                     statusCode: nil, reason: "Timeout", apnsLatency: nil, ingestLatency: nil))
            rows.append(DeliverySpec(channelID: channel, appID: app, sentAt: m1.addingTimeInterval(52), outcome: "failed", coalesced: 4,
                                     statusCode: 400, reason: "BadPriority", apnsLatency: 4, ingestLatency: 40))
            rows.append(DeliverySpec(channelID: channel, appID: app, sentAt: m2.addingTimeInterval(1), priority: 5, downgraded: true, coalesced: 2))
            rows.append(DeliverySpec(channelID: channel, appID: app, sentAt: m2.addingTimeInterval(2), outcome: "gone", statusCode: 410, reason: "ChannelNotRegistered"))
            rows.append(DeliverySpec(channelID: channel, appID: app, sentAt: m3.addingTimeInterval(3), outcome: "paused", statusCode: 403, reason: "InvalidProviderToken"))
            try await db.insert(rows)
            let duty = StatsRollupDuty(pool: db.pool, interval: .seconds(10))

            let report = try await duty.run(at: now)
            #expect(report["app_minutes"] == 3)
            var minutes = try await stored(db)
            for minute in [m1, m2, m3] {
                #expect(minutes[minute] == Self.expected(rows.filter { $0.sentAt.minuteStart == minute }), "minute \(minute)")
            }
            let reasons = try await db.pool.query("SELECT minute, reason, count FROM stats_minute_reasons ORDER BY minute, reason")
                .map { "\(try $0.decode("minute", as: Date.self) == m1 ? "m1" : "other") \(try $0.decode("reason", as: String.self)) \(try $0.decode("count", as: Int.self))" }
            #expect(reasons == ["m1 BadPriority 1", "m1 Timeout 1", "m1 TooManyRequests 1", "other ChannelNotRegistered 1", "other InvalidProviderToken 1"])
            #expect(try await db.count("SELECT count(*)::int FROM stats_rollup_state WHERE settled_before = \(m2)") == 1)

            // Again: nothing changes.
            _ = try await duty.run(at: now)
            #expect(try await stored(db) == minutes)

            // The current minute is recomputed as rows arrive; a minute whose rows are gone is emptied.
            let late = DeliverySpec(channelID: channel, appID: app, sentAt: m3.addingTimeInterval(20), apnsLatency: 100, ingestLatency: 200)
            try await db.insert([late])
            try await db.pool.execute("DELETE FROM deliveries WHERE sent_at >= \(m2) AND sent_at < \(m3)")
            _ = try await duty.run(at: now.addingTimeInterval(30))
            minutes = try await stored(db)
            #expect(minutes[m2] == nil)
            #expect(minutes[m3] == Self.expected(rows.filter { $0.sentAt.minuteStart == m3 } + [late]))
            #expect(minutes[m1] == Self.expected(rows.filter { $0.sentAt.minuteStart == m1 }))
        }
    }

    @Test func feedEventsAreRolledUpAndIngestTalliesKept() async throws {
        try await PollerDatabase.with { db in
            try await db.addGame("g1")
            let now = pollerTestNow
            let minute = now.minuteStart.addingTimeInterval(-120)
            try await db.insertEvents(game: "g1", at: [(minute, "accepted"), (minute.addingTimeInterval(5), "accepted"), (minute.addingTimeInterval(9), "stale")])
            try await IngestTally(pool: db.pool).record(duplicates: 2, rejected: 1, at: minute.addingTimeInterval(30))
            try await IngestTally(pool: db.pool).record(duplicates: 1, rejected: 0, at: minute.addingTimeInterval(40))
            _ = try await StatsRollupDuty(pool: db.pool, interval: .seconds(10)).run(at: now)
            let counts = Dictionary(uniqueKeysWithValues: try await db.pool.query("SELECT outcome, count FROM stats_minute_events WHERE minute = \(minute)")
                .map { (try $0.decode("outcome", as: String.self), try $0.decode("count", as: Int.self)) })
            #expect(counts == ["accepted": 2, "stale": 1, "duplicate": 3, "rejected": 1])
        }
    }
}
