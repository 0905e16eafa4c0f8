/// A value that goes up and down, one series per label combination. Thread-safe.
public struct Gauge<Labels: MetricLabels>: Sendable {
    /// The metric name, e.g. `scorecast_outbox_pending`.
    public let name: String
    /// The HELP text.
    public let help: String
    let store: SeriesStore<Double>

    init(name: String, help: String, maxSeries: Int) {
        self.name = name
        self.help = help
        self.store = SeriesStore(labelNames: Labels.names, maxSeries: maxSeries, initial: 0)
    }

    /// Sets the series of `labels` to `value`.
    public func set(_ labels: Labels, to value: Double) {
        store.update(labels.values) { $0 = value }
    }

    /// Adds `amount` (may be negative) to the series of `labels`.
    public func increment(_ labels: Labels, by amount: Double = 1) {
        store.update(labels.values) { $0 += amount }
    }

    /// Subtracts `amount` from the series of `labels`.
    public func decrement(_ labels: Labels, by amount: Double = 1) {
        increment(labels, by: -amount)
    }

    /// Replaces every series with `values`, dropping label combinations no longer present
    /// (e.g. channels per app, recomputed from the database). Values beyond the series cap are
    /// summed into the `other` series.
    public func replaceAll(_ values: [Labels: Double]) {
        var keyed: [[String]: Double] = [:]
        for (labels, value) in values { keyed[labels.values, default: 0] += value }
        store.replaceAll(keyed, merge: +)
    }

    /// The current value of the series of `labels` (0 if never set or if it overflowed).
    public func value(_ labels: Labels) -> Double {
        store.value(labels.values) ?? 0
    }
}

extension Gauge where Labels == NoLabels {
    /// Sets the single series to `value`.
    public func set(to value: Double) { set(NoLabels(), to: value) }

    /// Adds `amount` to the single series.
    public func increment(by amount: Double = 1) { increment(NoLabels(), by: amount) }

    /// Subtracts `amount` from the single series.
    public func decrement(by amount: Double = 1) { decrement(NoLabels(), by: amount) }

    /// The current value of the single series.
    public var value: Double { value(NoLabels()) }
}

extension Gauge: MetricFamily {
    var type: MetricType { .gauge }
    var overflowCount: UInt64 { store.overflowCount }

    func renderSamples(into out: inout String) {
        for (key, value) in store.snapshot() {
            out += name + PrometheusText.labelBlock(names: Labels.names, values: key) + " " + PrometheusText.format(value) + "\n"
        }
    }
}
