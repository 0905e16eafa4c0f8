import Foundation
import PrometheusMetrics
import TestSupport
import ScorecastCore
import Testing

import TestSupport
@testable import ServiceBase

/// Parses an exposition with the official Python client's parser (an implementation that owes
/// nothing to ours) and prints every sample as JSON.
private let parserScript = """
    import json, sys
    try:
        from prometheus_client.parser import text_string_to_metric_families
    except ImportError:
        sys.stderr.write("python package prometheus-client is missing: pip install -r Deploy/requirements-test.txt\\n")
        sys.exit(3)
    samples = []
    for family in text_string_to_metric_families(sys.stdin.read()):
        for sample in family.samples:
            samples.append({"family": family.name, "type": family.type, "help": family.documentation,
                            "name": sample.name, "labels": sample.labels, "value": repr(sample.value)})
    print(json.dumps(samples))
    """

private struct ParsedSample: Decodable {
    var family: String
    var type: String
    var help: String
    var name: String
    var labels: [String: String]
    var value: String
}

private func parse(_ exposition: String) async throws -> (status: Int32, samples: [ParsedSample], stderr: String) {
    let result: ExternalTool.Result
    do {
        result = try await ExternalTool.run("python3", ["-c", parserScript], stdin: Data(exposition.utf8), timeout: .seconds(30))
    } catch {
        Issue.record("python3 is required for this test (apt-get install python3): \(error)")
        throw error
    }
    if result.status == 127 {
        Issue.record("python3 is required for this test (apt-get install python3): \(result.stderr)")
    } else if result.status == 3 {
        Issue.record("cannot run the independent parser: \(result.stderr)")
    }
    guard result.status == 0 else { return (result.status, [], result.stderr) }
    let samples = try JSONDecoder().decode([ParsedSample].self, from: Data(result.stdout.utf8))
    return (0, samples, result.stderr)
}

@Suite("Prometheus exposition, checked by prometheus_client")
struct PrometheusParserTests {
    @Test func scorecastMetricsParseWithTheReferenceParser() async throws {
        let registry = MetricsRegistry()
        let metrics = try ScorecastMetrics(registry: registry)
        let app = AppLabels(app: "com.example.scores")
        metrics.eventsIngested.increment(IngestLabels(feed: "opta", outcome: .accepted), by: 41)
        metrics.eventsIngested.increment(IngestLabels(feed: "opta", outcome: .duplicate), by: 2)
        metrics.eventsIngested.increment(.rejected(feed: "odd \"app\"\\\nname", reason: .invalid))
        metrics.broadcastsSent.increment(SendLabels(app: app.app, outcome: .accepted, priority: .immediate), by: 12)
        metrics.broadcastsSent.increment(SendLabels(app: app.app, outcome: .retried, priority: .opportunistic), by: 3)
        metrics.broadcastFailures.increment(FailureLabels(app: app.app, reason: "TooManyRequests"), by: 3)
        metrics.coalesced.increment(app, by: 7)
        metrics.downgraded.increment(app, by: 4)
        metrics.retried.increment(app, by: 3)
        metrics.throttled.increment(app, by: 3)
        for value in [0.0004, 0.003, 0.004, 0.02, 0.2, 12] { metrics.ingestToSend.observe(value, app) }
        metrics.sendToAnswer.observe(.milliseconds(8), app)
        metrics.queueDepth.set(to: 17)
        metrics.oldestPendingAge.set(to: 0.75)
        metrics.inFlightSends.set(to: 5)
        metrics.apnsConnections.set(ConnectionLabels(pool: .send), to: 2)
        metrics.channels.set(app, to: 9_950)

        let (status, samples, stderr) = try await parse(registry.render())
        try #require(status == 0, "the reference parser refused our exposition: \(stderr)")

        func value(_ name: String, _ labels: [String: String] = [:]) -> Double? {
            samples.first { $0.name == name && $0.labels == labels }.flatMap { Double($0.value) }
        }
        let appLabel = ["app": app.app]
        #expect(value("scorecast_events_ingested_total", ["feed": "opta", "outcome": "accepted"]) == 41)
        #expect(value("scorecast_events_ingested_total", ["feed": "odd \"app\"\\\nname", "outcome": "rejected", "reason": "invalid"]) == 1)
        #expect(value("scorecast_broadcasts_sent_total", ["app": app.app, "outcome": "retried", "priority": "5"]) == 3)
        #expect(value("scorecast_broadcast_failures_total", ["app": app.app, "reason": "TooManyRequests"]) == 3)
        #expect(value("scorecast_updates_coalesced_total", appLabel) == 7)
        #expect(value("scorecast_broadcasts_downgraded_total", appLabel) == 4)
        #expect(value("scorecast_ingest_to_send_seconds_bucket", ["app": app.app, "le": "0.001"]) == 1)
        #expect(value("scorecast_ingest_to_send_seconds_bucket", ["app": app.app, "le": "0.005"]) == 3)
        #expect(value("scorecast_ingest_to_send_seconds_bucket", ["app": app.app, "le": "10"]) == 5)
        #expect(value("scorecast_ingest_to_send_seconds_bucket", ["app": app.app, "le": "+Inf"]) == 6)
        #expect(value("scorecast_ingest_to_send_seconds_count", appLabel) == 6)
        #expect(abs((value("scorecast_ingest_to_send_seconds_sum", appLabel) ?? 0) - 12.2274) < 1e-9)
        #expect(value("scorecast_apns_response_seconds_count", appLabel) == 1)
        #expect(value("scorecast_outbox_pending") == 17)
        #expect(value("scorecast_outbox_oldest_pending_age_seconds") == 0.75)
        #expect(value("scorecast_sends_in_flight") == 5)
        #expect(value("scorecast_apns_connections", ["pool": "send"]) == 2)
        #expect(value("scorecast_channels", appLabel) == 9_950)
        #expect(value(MetricsRegistry.overflowMetricName, ["metric": "scorecast_channels"]) == 0)

        let types = Dictionary(samples.map { ($0.family, $0.type) }, uniquingKeysWith: { first, _ in first })
        #expect(types["scorecast_events_ingested"] == "counter")
        #expect(types["scorecast_ingest_to_send_seconds"] == "histogram")
        #expect(types["scorecast_outbox_pending"] == "gauge")
        #expect(samples.allSatisfy { !$0.help.isEmpty })

        // Every histogram series' buckets are cumulative and end at its count.
        let buckets = samples.filter { $0.name == "scorecast_ingest_to_send_seconds_bucket" }.compactMap { Double($0.value) }
        #expect(buckets.count == Histogram<AppLabels>.latencyBuckets.count + 1)
        #expect(zip(buckets, buckets.dropFirst()).allSatisfy { $0 <= $1 })
    }

    @Test func theReferenceParserRejectsABrokenExposition() async throws {
        // A control: proves the parser is strict enough for the test above to mean something.
        let (status, _, _) = try await parse("# TYPE broken counter\nbroken{reason=\"unterminated} 1\n")
        #expect(status != 0 && status != 3)
    }
}
