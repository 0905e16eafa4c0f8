/// Observations counted into fixed buckets, with their sum and count, one series per label
/// combination. Thread-safe.
public struct Histogram<Labels: MetricLabels>: Sendable {
    /// Latency buckets in seconds, from 1 ms to 10 s.
    public static var latencyBuckets: [Double] {
        [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]
    }

    /// The metric name, e.g. `scorecast_ingest_to_send_seconds`.
    public let name: String
    /// The HELP text.
    public let help: String
    /// The upper bounds of the buckets, strictly increasing; `+Inf` is implied after the last.
    public let buckets: [Double]
    let store: SeriesStore<HistogramSeries>

    init(name: String, help: String, buckets: [Double], maxSeries: Int) {
        self.name = name
        self.help = help
        self.buckets = buckets
        self.store = SeriesStore(
            labelNames: Labels.names, maxSeries: maxSeries,
            initial: HistogramSeries(bucketCounts: Array(repeating: 0, count: buckets.count)))
    }

    /// Records one observation in the series of `labels`. NaN is ignored.
    public func observe(_ value: Double, _ labels: Labels) {
        guard !value.isNaN else { return }
        let index = buckets.firstIndex { value <= $0 }
        store.update(labels.values) { series in
            if let index { series.bucketCounts[index] += 1 }
            series.sum += value
            series.count += 1
        }
    }

    /// Records a duration, in seconds, in the series of `labels`.
    public func observe(_ duration: Duration, _ labels: Labels) {
        let (seconds, attoseconds) = duration.components
        observe(Double(seconds) + Double(attoseconds) / 1e18, labels)
    }

    /// The number of observations in the series of `labels`.
    public func count(_ labels: Labels) -> UInt64 {
        store.value(labels.values)?.count ?? 0
    }

    /// The sum of the observations in the series of `labels`.
    public func sum(_ labels: Labels) -> Double {
        store.value(labels.values)?.sum ?? 0
    }
}

extension Histogram where Labels == NoLabels {
    /// Records one observation in the single series.
    public func observe(_ value: Double) { observe(value, NoLabels()) }

    /// Records a duration, in seconds, in the single series.
    public func observe(_ duration: Duration) { observe(duration, NoLabels()) }
}

/// The state of one histogram series: per-bucket (non-cumulative) counts, sum and count.
struct HistogramSeries: Sendable {
    var bucketCounts: [UInt64]
    var sum: Double = 0
    var count: UInt64 = 0
}

extension Histogram: MetricFamily {
    var type: MetricType { .histogram }
    var overflowCount: UInt64 { store.overflowCount }

    func renderSamples(into out: inout String) {
        let names = Labels.names + ["le"]
        for (key, series) in store.snapshot() {
            var cumulative: UInt64 = 0
            for (bound, count) in zip(buckets, series.bucketCounts) {
                cumulative += count
                let labels = PrometheusText.labelBlock(names: names, values: key + [PrometheusText.format(bound)])
                out += name + "_bucket" + labels + " " + String(cumulative) + "\n"
            }
            let infinity = PrometheusText.labelBlock(names: names, values: key + ["+Inf"])
            out += name + "_bucket" + infinity + " " + String(series.count) + "\n"
            let plain = PrometheusText.labelBlock(names: Labels.names, values: key)
            out += name + "_sum" + plain + " " + PrometheusText.format(series.sum) + "\n"
            out += name + "_count" + plain + " " + String(series.count) + "\n"
        }
    }
}
