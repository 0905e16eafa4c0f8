/// Why the registry refused to register a metric. These are programming errors caught at
/// start-up, so each description names the metric and what is wrong with it.
public enum MetricsError: Error, Equatable, CustomStringConvertible {
    /// The metric name does not match `[a-zA-Z_:][a-zA-Z0-9_:]*`.
    case invalidMetricName(String)
    /// A label name does not match `[a-zA-Z_][a-zA-Z0-9_]*`, starts with `__`, or is reserved.
    case invalidLabelName(metric: String, label: String)
    /// A label name appears twice in one metric's label set.
    case duplicateLabelName(metric: String, label: String)
    /// Another metric with this name is already registered.
    case duplicateMetric(String)
    /// Histogram buckets must be finite and strictly increasing, and there must be at least one.
    case invalidBuckets(metric: String, detail: String)

    /// A one-line explanation naming the metric.
    public var description: String {
        switch self {
        case .invalidMetricName(let name):
            "metric name \"\(name)\" is invalid: use [a-zA-Z_:][a-zA-Z0-9_:]*"
        case .invalidLabelName(let metric, let label):
            "metric \(metric): label name \"\(label)\" is invalid or reserved: use [a-zA-Z_][a-zA-Z0-9_]*, not starting with __ (and not le on a histogram)"
        case .duplicateLabelName(let metric, let label):
            "metric \(metric): label \"\(label)\" is declared twice"
        case .duplicateMetric(let name):
            "metric \(name) is already registered"
        case .invalidBuckets(let metric, let detail):
            "metric \(metric): invalid histogram buckets: \(detail)"
        }
    }
}
