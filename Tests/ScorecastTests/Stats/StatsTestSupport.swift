import Foundation
import HTTPServer
@testable import Statistics
import Testing
import JSON
import TestSupport

/// A small deterministic generator for scripted rows (the same rows every run).
struct ScriptedRandom {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next(_ bound: Int) -> Int {
        state = state &* 6364136223846793005 &+ 1442695040888963407
        return Int((state >> 33) % UInt64(bound))
    }
}

/// The figures the statistics API must report, computed here from the scripted rows with the
/// documented definitions (not with the code under test).
enum ExpectedFigures {
    /// Feed events known to the test: (time, outcome).
    typealias Event = (at: Date, outcome: String)

    static func figures(
        deliveries: [DeliverySpec], events: [Event], rescued: Int
    ) -> (counts: [String: Int], reasons: [String: Int], ingest: [Double], apns: [Double]) {
        var counts: [String: Int] = [:]
        var reasons: [String: Int] = [:]
        for row in deliveries {
            counts["total", default: 0] += 1
            switch row.outcome {
            case "sent": counts["accepted", default: 0] += 1
            case "retry": counts["sendsRetried", default: 0] += 1
            default: counts["failed", default: 0] += 1
            }
            if row.outcome != "sent" { reasons[row.reason ?? "unknown", default: 0] += 1 }
            if row.priority == 10 { counts["p10", default: 0] += 1 } else { counts["p5", default: 0] += 1 }
            if row.statusCode == 429 { counts["throttled", default: 0] += 1 }
            if row.downgraded && row.outcome == "sent" { counts["downgraded", default: 0] += 1 }
            if ["sent", "failed", "gone"].contains(row.outcome) { counts["coalesced", default: 0] += Int(row.coalesced) }
        }
        counts["retried"] = (counts["sendsRetried"] ?? 0) + rescued
        for event in events { counts["events." + event.outcome, default: 0] += 1 }
        return (counts, reasons, deliveries.compactMap(\.ingestLatency).sorted(), deliveries.compactMap(\.apnsLatency).sorted())
    }

    /// Checks `actual` against the figures of the rows; `label` names the bucket in messages.
    static func check(
        _ actual: DeliveryFigures, deliveries: [DeliverySpec], events: [Event], rescued: Int = 0, label: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let (counts, reasons, ingest, apns) = figures(deliveries: deliveries, events: events, rescued: rescued)
        let c = { (name: String) in counts[name] ?? 0 }
        #expect(actual.sends.total == c("total"), "\(label): sends", sourceLocation: sourceLocation)
        #expect(actual.sends.accepted == c("accepted"), "\(label): accepted", sourceLocation: sourceLocation)
        #expect(actual.sends.retried == c("sendsRetried"), "\(label): sends retried", sourceLocation: sourceLocation)
        #expect(actual.sends.failed == c("failed"), "\(label): failed", sourceLocation: sourceLocation)
        #expect(actual.sends.priority10 == c("p10"), "\(label): priority 10", sourceLocation: sourceLocation)
        #expect(actual.sends.priority5 == c("p5"), "\(label): priority 5", sourceLocation: sourceLocation)
        #expect(actual.throttled == c("throttled"), "\(label): throttled", sourceLocation: sourceLocation)
        #expect(actual.downgraded == c("downgraded"), "\(label): downgraded", sourceLocation: sourceLocation)
        #expect(actual.coalesced == c("coalesced"), "\(label): coalesced", sourceLocation: sourceLocation)
        #expect(actual.retried == c("retried"), "\(label): retried", sourceLocation: sourceLocation)
        #expect(Dictionary(uniqueKeysWithValues: actual.failures.map { ($0.reason, $0.count) }) == reasons,
                "\(label): failures", sourceLocation: sourceLocation)
        #expect(actual.events.accepted == c("events.accepted") && actual.events.stale == c("events.stale")
                && actual.events.duplicate == c("events.duplicate") && actual.events.rejected == c("events.rejected"),
                "\(label): events \(actual.events)", sourceLocation: sourceLocation)
        checkPercentiles(actual.latency.ingestToSend, ingest, "\(label): ingest→send", sourceLocation)
        checkPercentiles(actual.latency.sendToAnswer, apns, "\(label): send→answer", sourceLocation)
    }

    static func checkPercentiles(_ actual: LatencyPercentiles, _ sorted: [Double], _ label: String, _ sourceLocation: SourceLocation) {
        #expect(actual.samples == sorted.count, "\(label) samples", sourceLocation: sourceLocation)
        for (fraction, value) in [(0.5, actual.p50Ms), (0.95, actual.p95Ms), (0.99, actual.p99Ms)] {
            let expected = StatsRollupDutyTests.interpolated(sorted, fraction)
            switch (expected, value) {
            case (nil, nil): break
            case let (e?, v?): #expect(abs(e - v) < 1e-9, "\(label) p\(Int(fraction * 100)): \(v) ≠ \(e)", sourceLocation: sourceLocation)
            default: Issue.record("\(label) p\(Int(fraction * 100)): \(String(describing: value)) ≠ \(String(describing: expected))", sourceLocation: sourceLocation)
            }
        }
    }
}

/// Calls a router like a client would and decodes the JSON answer.
func getJSON<T: Decodable>(_ router: Router, _ path: String, query: [String: String] = [:], as type: T.Type) async throws -> T {
    let response = try await TestClient.router(router).get(TestClient.target(path, query: query.sorted { $0.key < $1.key }))
    #expect(response.status == 200, "\(path): \(response.text)")
    return try JSONCoding.decode(T.self, from: response.body)
}

/// The status and body of a request the router answers with a problem (or not).
func getStatus(_ router: Router, _ path: String, query: [String: String] = [:]) async throws -> (status: Int, body: String) {
    let response = try await TestClient.router(router).get(TestClient.target(path, query: query.sorted { $0.key < $1.key }))
    return (response.status, response.text)
}
