import Synchronization

/// Holds every metric of the process and renders them for `GET /metrics` in the Prometheus text
/// exposition format 0.0.4.
///
/// Cardinality is bounded by design: each metric's label names are declared up front by its
/// `MetricLabels` type, and each metric keeps at most `maxSeriesPerMetric` label combinations.
/// Observations for further combinations are folded into one series whose labels are all
/// `other`, and counted in `scorecast_metrics_series_overflow_total{metric="…"}` so that an
/// operator sees it happen.
public final class MetricsRegistry: Sendable {
    /// The content type of a rendered exposition.
    public static let contentType = PrometheusText.contentType

    /// The name of the registry's own counter of observations folded into `other` series.
    public static let overflowMetricName = "scorecast_metrics_series_overflow_total"

    /// The default cap on label combinations per metric.
    public static let defaultMaxSeriesPerMetric = 1_000

    /// The cap on distinct label combinations per metric (at least 1).
    public let maxSeriesPerMetric: Int

    private let families = Mutex<[any MetricFamily]>([])

    /// Creates an empty registry.
    /// - Parameter maxSeriesPerMetric: the cap on label combinations per metric; values below 1
    ///   are raised to 1.
    public init(maxSeriesPerMetric: Int = MetricsRegistry.defaultMaxSeriesPerMetric) {
        self.maxSeriesPerMetric = max(1, maxSeriesPerMetric)
    }

    /// Registers a counter. By convention its name ends in `_total`.
    public func counter<Labels: MetricLabels>(
        _ name: String, help: String, labels: Labels.Type = NoLabels.self
    ) throws(MetricsError) -> Counter<Labels> {
        try validate(name: name, labelNames: Labels.names, reserved: [])
        let counter = Counter<Labels>(name: name, help: help, maxSeries: maxSeriesPerMetric)
        try add(counter)
        return counter
    }

    /// Registers a gauge.
    public func gauge<Labels: MetricLabels>(
        _ name: String, help: String, labels: Labels.Type = NoLabels.self
    ) throws(MetricsError) -> Gauge<Labels> {
        try validate(name: name, labelNames: Labels.names, reserved: [])
        let gauge = Gauge<Labels>(name: name, help: help, maxSeries: maxSeriesPerMetric)
        try add(gauge)
        return gauge
    }

    /// Registers a histogram with fixed `buckets` (finite, strictly increasing upper bounds; the
    /// `+Inf` bucket is implied). Its name should carry the unit, e.g. `_seconds`.
    public func histogram<Labels: MetricLabels>(
        _ name: String, help: String, buckets: [Double], labels: Labels.Type = NoLabels.self
    ) throws(MetricsError) -> Histogram<Labels> {
        try validate(name: name, labelNames: Labels.names, reserved: ["le"])
        guard !buckets.isEmpty else { throw .invalidBuckets(metric: name, detail: "no buckets") }
        guard buckets.allSatisfy(\.isFinite) else {
            throw .invalidBuckets(metric: name, detail: "bounds must be finite (+Inf is implied)")
        }
        guard zip(buckets, buckets.dropFirst()).allSatisfy({ $0 < $1 }) else {
            throw .invalidBuckets(metric: name, detail: "bounds must be strictly increasing")
        }
        let histogram = Histogram<Labels>(name: name, help: help, buckets: buckets, maxSeries: maxSeriesPerMetric)
        try add(histogram)
        return histogram
    }

    /// Renders every metric, in registration order, followed by the overflow counter; the
    /// families named in `omitting` are left out (metrics another process exports).
    public func render(omitting: Set<String> = []) -> String {
        let all = families.withLock { $0 }.filter { !omitting.contains($0.name) }
        var out = ""
        for family in all {
            out += "# HELP \(family.name) \(PrometheusText.escapeHelp(family.help))\n"
            out += "# TYPE \(family.name) \(family.type.rawValue)\n"
            family.renderSamples(into: &out)
        }
        let name = Self.overflowMetricName
        out += "# HELP \(name) Observations folded into the 'other' series because a metric reached its cap on label combinations.\n"
        out += "# TYPE \(name) counter\n"
        for family in all.sorted(by: { $0.name < $1.name }) {
            let labels = PrometheusText.labelBlock(names: ["metric"], values: [family.name])
            out += name + labels + " " + String(family.overflowCount) + "\n"
        }
        return out
    }

    private func validate(name: String, labelNames: [String], reserved: Set<String>) throws(MetricsError) {
        guard PrometheusText.isValidMetricName(name) else { throw .invalidMetricName(name) }
        var seen = Set<String>()
        for label in labelNames {
            guard PrometheusText.isValidLabelName(label), !reserved.contains(label) else {
                throw .invalidLabelName(metric: name, label: label)
            }
            guard seen.insert(label).inserted else { throw .duplicateLabelName(metric: name, label: label) }
        }
    }

    private func add(_ family: any MetricFamily) throws(MetricsError) {
        let added = families.withLock { families in
            // Also refuse names that collide with a histogram's or the registry's own series.
            let taken = families.flatMap { Self.seriesNames(of: $0) } + [Self.overflowMetricName]
            guard !Self.seriesNames(of: family).contains(where: taken.contains) else { return false }
            families.append(family)
            return true
        }
        guard added else { throw .duplicateMetric(family.name) }
    }

    private static func seriesNames(of family: any MetricFamily) -> [String] {
        switch family.type {
        case .histogram: [family.name, family.name + "_bucket", family.name + "_sum", family.name + "_count"]
        case .counter, .gauge: [family.name]
        }
    }
}
