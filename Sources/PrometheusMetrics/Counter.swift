/// A monotonically increasing count, one series per label combination. Thread-safe.
public struct Counter<Labels: MetricLabels>: Sendable {
    /// The metric name, e.g. `scorecast_events_ingested_total`.
    public let name: String
    /// The HELP text.
    public let help: String
    let store: SeriesStore<Double>

    init(name: String, help: String, maxSeries: Int) {
        self.name = name
        self.help = help
        self.store = SeriesStore(labelNames: Labels.names, maxSeries: maxSeries, initial: 0)
    }

    /// Adds `amount` (default 1) to the series of `labels`. Negative, infinite or NaN amounts are
    /// ignored: a counter never goes down.
    public func increment(_ labels: Labels, by amount: Double = 1) {
        guard amount >= 0, amount.isFinite else { return }
        store.update(labels.values) { $0 += amount }
    }

    /// The current value of the series of `labels` (0 if never incremented or if it overflowed).
    public func value(_ labels: Labels) -> Double {
        store.value(labels.values) ?? 0
    }
}

extension Counter where Labels == NoLabels {
    /// Adds `amount` (default 1) to the single series.
    public func increment(by amount: Double = 1) {
        increment(NoLabels(), by: amount)
    }

    /// The current value of the single series.
    public var value: Double { value(NoLabels()) }
}

extension Counter: MetricFamily {
    var type: MetricType { .counter }
    var overflowCount: UInt64 { store.overflowCount }

    func renderSamples(into out: inout String) {
        for (key, value) in store.snapshot() {
            out += name + PrometheusText.labelBlock(names: Labels.names, values: key) + " " + PrometheusText.format(value) + "\n"
        }
    }
}
