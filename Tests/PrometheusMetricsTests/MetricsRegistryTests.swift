import Foundation
import Testing

@testable import PrometheusMetrics

private struct ReasonLabels: MetricLabels {
    static let names = ["reason"]
    var reason: String
    var values: [String] { [reason] }
}

private struct AppLabels: MetricLabels {
    static let names = ["app"]
    var app: String
    var values: [String] { [app] }
}

private struct BadLabels: MetricLabels {
    static let names = ["le"]
    var values: [String] { ["x"] }
}

private struct TwiceLabels: MetricLabels {
    static let names = ["app", "app"]
    var values: [String] { ["a", "b"] }
}

@Suite("Metrics registry")
struct MetricsRegistryTests {
    @Test func counterRendersHelpTypeAndOneLinePerSeries() throws {
        let registry = MetricsRegistry()
        let counter = try registry.counter("demo_total", help: "Demo events.\nSecond line \\ here", labels: ReasonLabels.self)
        counter.increment(ReasonLabels(reason: "b"), by: 2)
        counter.increment(ReasonLabels(reason: "a"))
        counter.increment(ReasonLabels(reason: "a"), by: -5)  // ignored: counters never go down
        counter.increment(ReasonLabels(reason: "a"), by: .nan)  // ignored
        let text = registry.render()
        #expect(text.contains("# HELP demo_total Demo events.\\nSecond line \\\\ here\n# TYPE demo_total counter\ndemo_total{reason=\"a\"} 1\ndemo_total{reason=\"b\"} 2\n"))
        #expect(counter.value(ReasonLabels(reason: "a")) == 1)
    }

    @Test func metricWithoutLabelsRendersZeroBeforeUse() throws {
        let registry = MetricsRegistry()
        let gauge = try registry.gauge("queue_depth", help: "Depth.")
        #expect(registry.render().contains("queue_depth 0\n"))
        gauge.set(to: 12.5)
        gauge.decrement(by: 2)
        #expect(gauge.value == 10.5)
        #expect(registry.render().contains("queue_depth 10.5\n"))
    }

    @Test func omittedFamiliesLeaveNoLineAndNoOverflowSeries() throws {
        let registry = MetricsRegistry()
        let own = try registry.counter("sends_total", help: "Sends.")
        let shared = try registry.gauge("queue_depth", help: "Depth.")
        own.increment(by: 3)
        shared.set(to: 7)
        let text = registry.render(omitting: ["queue_depth"])
        #expect(text.contains("sends_total 3\n"))
        #expect(!text.contains("queue_depth"))
        #expect(registry.render().contains("queue_depth 7\n"))
    }

    @Test func emptyLabelValuesAreLeftOut() throws {
        let registry = MetricsRegistry()
        let counter = try registry.counter("demo_total", help: "Demo.", labels: ReasonLabels.self)
        counter.increment(ReasonLabels(reason: ""), by: 2)
        counter.increment(ReasonLabels(reason: "a"))
        let text = registry.render()
        #expect(text.contains("\ndemo_total 2\ndemo_total{reason=\"a\"} 1\n"), "\(text)")
    }

    @Test func histogramBucketsAreCumulativeWithInfSumAndCount() throws {
        let registry = MetricsRegistry()
        let histogram = try registry.histogram("latency_seconds", help: "Latency.", buckets: [0.01, 0.1, 1])
        for value in [0.005, 0.01, 0.05, 0.5, 3] { histogram.observe(value) }
        histogram.observe(.milliseconds(20))
        let text = registry.render()
        let expected = """
            latency_seconds_bucket{le="0.01"} 2
            latency_seconds_bucket{le="0.1"} 4
            latency_seconds_bucket{le="1"} 5
            latency_seconds_bucket{le="+Inf"} 6
            latency_seconds_sum 3.585
            latency_seconds_count 6

            """
        #expect(text.contains(expected))
        #expect(histogram.count(NoLabels()) == 6)
    }

    @Test func labelValuesAreEscaped() throws {
        let registry = MetricsRegistry()
        let counter = try registry.counter("escaped_total", help: "x", labels: ReasonLabels.self)
        counter.increment(ReasonLabels(reason: "a\"b\\c\nd"))
        #expect(registry.render().contains(#"escaped_total{reason="a\"b\\c\nd"} 1"#))
    }

    @Test func combinationsBeyondTheCapFoldIntoOtherAndAreCounted() throws {
        let registry = MetricsRegistry(maxSeriesPerMetric: 3)
        let counter = try registry.counter("capped_total", help: "x", labels: ReasonLabels.self)
        for index in 0..<10 { counter.increment(ReasonLabels(reason: "r\(index)")) }
        counter.increment(ReasonLabels(reason: "r1"), by: 5)  // an existing series still counts
        let text = registry.render()
        let lines = text.split(separator: "\n").filter { $0.hasPrefix("capped_total{") }
        #expect(lines == ["capped_total{reason=\"other\"} 7", "capped_total{reason=\"r0\"} 1",
                          "capped_total{reason=\"r1\"} 6", "capped_total{reason=\"r2\"} 1"])
        #expect(text.contains("scorecast_metrics_series_overflow_total{metric=\"capped_total\"} 7\n"))
    }

    @Test func gaugeReplaceAllDropsVanishedSeries() throws {
        let registry = MetricsRegistry()
        let gauge = try registry.gauge("channels", help: "x", labels: AppLabels.self)
        gauge.set(AppLabels(app: "old.app"), to: 4)
        gauge.replaceAll([AppLabels(app: "a.app"): 2, AppLabels(app: "b.app"): 3])
        let text = registry.render()
        #expect(!text.contains("old.app"))
        #expect(text.contains("channels{app=\"a.app\"} 2\nchannels{app=\"b.app\"} 3\n"))
    }

    @Test func registrationRefusesBadNamesLabelsAndBuckets() throws {
        let registry = MetricsRegistry()
        _ = try registry.counter("taken_total", help: "x")
        #expect(throws: MetricsError.duplicateMetric("taken_total")) { try registry.counter("taken_total", help: "y") }
        #expect(throws: MetricsError.invalidMetricName("9lives")) { try registry.gauge("9lives", help: "x") }
        #expect(throws: MetricsError.invalidMetricName("has-dash")) { try registry.gauge("has-dash", help: "x") }
        #expect(throws: MetricsError.invalidLabelName(metric: "h", label: "le")) {
            try registry.histogram("h", help: "x", buckets: [1], labels: BadLabels.self)
        }
        #expect(throws: MetricsError.duplicateLabelName(metric: "t", label: "app")) {
            try registry.counter("t", help: "x", labels: TwiceLabels.self)
        }
        #expect(throws: MetricsError.invalidBuckets(metric: "h2", detail: "bounds must be strictly increasing")) {
            try registry.histogram("h2", help: "x", buckets: [1, 1])
        }
        #expect(throws: MetricsError.invalidBuckets(metric: "h3", detail: "no buckets")) {
            try registry.histogram("h3", help: "x", buckets: [])
        }
        _ = try registry.histogram("lat", help: "x", buckets: [1])
        #expect(throws: MetricsError.duplicateMetric("lat_count")) { try registry.counter("lat_count", help: "x") }
        #expect(throws: MetricsError.duplicateMetric(MetricsRegistry.overflowMetricName)) {
            try registry.counter(MetricsRegistry.overflowMetricName, help: "x")
        }
    }
}
