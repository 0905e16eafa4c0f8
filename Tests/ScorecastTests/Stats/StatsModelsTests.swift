import Foundation
import JSON
@testable import Statistics
import Testing


@Suite("Stats models")
struct StatsModelsTests {
    @Test(arguments: [("15m", 900), ("1h", 3_600), ("24h", 86_400), ("7d", 604_800), ("90m", 5_400), ("1m", 60), ("168h", 604_800)])
    func windowsParse(text: String, seconds: Int) throws {
        let window = try StatsWindow(parsing: text)
        #expect(window.seconds == seconds)
        #expect(window.description == text)
    }

    @Test func windowsOutsideTheRulesAreRefusedWithAClearError() {
        for text in ["", "15", "m", "15s", "1.5h", "-1h", " 1h", "1h ", "1H", "١h", "9999999m"] {
            #expect(throws: StatsWindowError.malformed(text)) { try StatsWindow(parsing: text) }
        }
        for text in ["0m", "8d", "169h", "10081m"] {
            #expect(throws: StatsWindowError.outOfRange(text)) { try StatsWindow(parsing: text) }
        }
        let message = StatsWindowError.malformed("15s").description
        #expect(message.contains("\"15s\"") && message.contains("15m") && message.contains("7d"))
    }

    @Test func windowDecodingRefusesBadText() throws {
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode([StatsWindow].self, from: Data(#"["2w"]"#.utf8))
        }
        let decoded = try JSONDecoder().decode([StatsWindow].self, from: Data(#"["24h"]"#.utf8))
        #expect(decoded.first?.seconds == 86_400)
    }

    @Test func percentilesInterpolateLikePostgresPercentileCont() {
        // Reference values from PostgreSQL: select percentile_cont(p) within group (order by v)
        // from unnest(array[1,2,3,4,5,6,7,8,9,10]) v;  → 5.5, 9.55, 9.91
        let values = (1...10).map(Double.init).shuffled()
        #expect(Percentile.value(of: values, at: 0.5) == 5.5)
        #expect(abs((Percentile.value(of: values, at: 0.95) ?? 0) - 9.55) < 1e-9)
        #expect(abs((Percentile.value(of: values, at: 0.99) ?? 0) - 9.91) < 1e-9)
        #expect(Percentile.value(of: [], at: 0.5) == nil)
        #expect(Percentile.value(of: [7], at: 0.99) == 7)
        #expect(Percentile.value(of: [1, 2], at: 1.5) == nil)
        #expect(Percentile.value(of: [1, .nan, 3, .infinity], at: 0.5) == 2)
        let latency = LatencyPercentiles(samplesMs: [4, 1, 3, 2])
        #expect(latency.samples == 4 && latency.p50Ms == 2.5)
        #expect(LatencyPercentiles(samplesMs: []) == .empty)
    }

    @Test func exampleTotalsAreTheSumsOfTheirSeries() {
        let example = StatsResponse.example
        #expect(example.series.count == example.window.seconds / example.bucketSeconds)
        let sends = example.series.map(\.figures.sends)
        #expect(example.totals.sends.total == sends.reduce(0) { $0 + $1.total })
        #expect(example.totals.sends.accepted + example.totals.sends.retried + example.totals.sends.failed == example.totals.sends.total)
        #expect(example.totals.sends.priority10 + example.totals.sends.priority5 == example.totals.sends.total)
        #expect(example.totals.failures.reduce(0) { $0 + $1.count } == example.totals.sends.retried + example.totals.sends.failed)
        #expect(example.totals.coalesced == example.series.reduce(0) { $0 + $1.figures.coalesced })
        let budget = ChannelStatsResponse.example.budget
        let channel = ChannelStatsResponse.example.totals
        #expect(budget.priority10Used == channel.sends.priority10)
        #expect(budget.downgrades == channel.downgraded)
        #expect(budget.throttled == channel.throttled)
    }

    @Test func responsesRoundTripThroughJSON() throws {
        #expect(try JSONCoding.decode(StatsResponse.self, from: JSONCoding.encode(StatsResponse.example)) == .example)
        #expect(try JSONCoding.decode(LiveStatsResponse.self, from: JSONCoding.encode(LiveStatsResponse.example)) == .example)
        #expect(try JSONCoding.decode(ChannelStatsResponse.self, from: JSONCoding.encode(ChannelStatsResponse.example)) == .example)
        #expect(try JSONCoding.decode(GameStatsResponse.self, from: JSONCoding.encode(GameStatsResponse.example)) == .example)
        #expect(try JSONCoding.decode(AppStatsResponse.self, from: JSONCoding.encode(AppStatsResponse.example)) == .example)
    }

    @Test func seriesBucketsAreFlatObjectsWithRFC3339Times() throws {
        let data = Data(try JSONCoding.encode(StatsResponse.example))
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(object["window"] as? String == "15m")
        #expect(object["from"] as? String == "2025-11-29T20:00:00Z")
        let first = try #require((object["series"] as? [[String: Any]])?.first)
        #expect(first["start"] as? String == "2025-11-29T20:00:00Z")
        #expect((first["sends"] as? [String: Any])?["total"] as? Int == 38)
        #expect(first["figures"] == nil)
        let latency = try #require((first["latency"] as? [String: Any])?["ingestToSend"] as? [String: Any])
        #expect(latency["p99Ms"] as? Double == 22.5)
    }

    @Test func budgetsSortClosestToTheLimitFirst() {
        let hour = Date(timeIntervalSince1970: 0)
        let budgets = [
            ChannelBudgetStatus(channel: "a", app: "x", game: nil, hourStart: hour, priority10Used: 3, priority10Limit: 15, downgrades: 0, throttled: 0),
            ChannelBudgetStatus(channel: "b", app: "x", game: nil, hourStart: hour, priority10Used: 15, priority10Limit: 15, downgrades: 2, throttled: 0),
            ChannelBudgetStatus(channel: "c", app: "x", game: nil, hourStart: hour, priority10Used: 15, priority10Limit: 15, downgrades: 5, throttled: 1),
            ChannelBudgetStatus(channel: "d", app: "x", game: nil, hourStart: hour, priority10Used: 0, priority10Limit: 0, downgrades: 0, throttled: 0),
        ]
        #expect(ChannelBudgetStatus.closestToLimit(budgets).map(\.channel) == ["c", "b", "d", "a"])
        #expect(budgets[0].remaining == 12)
        let usage = ChannelUsage(active: 8_950, retiring: 60)
        #expect(usage.used == 9_010 && usage.remaining == 990 && usage.nearLimit)
        #expect(!ChannelUsage(active: 10, retiring: 0).nearLimit)
        // One threshold with the registry, which warns from the same share when creating.
        #expect(ChannelUsage(active: 7_999, retiring: 1).nearLimit && !ChannelUsage(active: 7_999, retiring: 0).nearLimit)
    }
}
