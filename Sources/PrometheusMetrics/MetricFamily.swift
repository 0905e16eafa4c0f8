/// The kind of a metric, as written on its `# TYPE` line.
public enum MetricType: String, Sendable {
    /// A value that only goes up (resets on restart).
    case counter
    /// A value that goes up and down.
    case gauge
    /// Observations counted into fixed buckets, with their sum and count.
    case histogram
}

/// What the registry needs from any registered metric to render it.
protocol MetricFamily: Sendable {
    var name: String { get }
    var help: String { get }
    var type: MetricType { get }
    var overflowCount: UInt64 { get }
    /// Appends the sample lines (not the HELP and TYPE lines).
    func renderSamples(into out: inout String)
}
