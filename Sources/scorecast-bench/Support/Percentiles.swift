import Statistics

/// Percentiles of a sample, by the product's one definition (``Percentile``: PostgreSQL's
/// `percentile_cont`, linear interpolation between the nearest ranks), so the p99 the bench
/// reports is the number `/v1/stats` and the dashboard show for the same deliveries.
struct Percentiles: Sendable, Codable {
    /// Number of values.
    let count: Int
    /// Median.
    let p50: Double
    /// 90th percentile.
    let p90: Double
    /// 95th percentile.
    let p95: Double
    /// 99th percentile.
    let p99: Double
    /// Largest value.
    let max: Double

    /// Percentiles computed elsewhere (by Postgres' `percentile_cont`).
    init(count: Int, p50: Double, p90: Double, p95: Double, p99: Double, max: Double) {
        self.count = count
        self.p50 = p50
        self.p90 = p90
        self.p95 = p95
        self.p99 = p99
        self.max = max
    }

    /// Computes the percentiles of `values`; `nil` when there are none.
    init?(_ values: [Double]) {
        guard !values.isEmpty else { return nil }
        let sorted = values.filter(\.isFinite).sorted()
        guard let p50 = Percentile.value(ofSorted: sorted, at: 0.50), let p90 = Percentile.value(ofSorted: sorted, at: 0.90),
              let p95 = Percentile.value(ofSorted: sorted, at: 0.95),
              let p99 = Percentile.value(ofSorted: sorted, at: 0.99), let max = sorted.last else { return nil }
        self.init(count: sorted.count, p50: p50, p90: p90, p95: p95, p99: p99, max: max)
    }
}

extension Array where Element == Double {
    /// The median (``Percentile`` at 0.5), or 0 for an empty array.
    var median: Double {
        Percentile.value(of: self, at: 0.5) ?? 0
    }
}
