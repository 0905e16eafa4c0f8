/// Nearest-rank percentiles of a sample.
struct Percentiles: Sendable, Codable {
    /// Number of values.
    let count: Int
    /// Median.
    let p50: Double
    /// 90th percentile.
    let p90: Double
    /// 99th percentile.
    let p99: Double
    /// Largest value.
    let max: Double

    /// Percentiles computed elsewhere (e.g. by Postgres' percentile_disc).
    init(count: Int, p50: Double, p90: Double, p99: Double, max: Double) {
        self.count = count
        self.p50 = p50
        self.p90 = p90
        self.p99 = p99
        self.max = max
    }

    /// Computes the percentiles of `values`; `nil` when there are none.
    init?(_ values: [Double]) {
        guard !values.isEmpty else { return nil }
        let sorted = values.sorted()
        func rank(_ q: Double) -> Double {
            let index = Int((q * Double(sorted.count)).rounded(.up)) - 1
            return sorted[Swift.max(0, Swift.min(sorted.count - 1, index))]
        }
        count = sorted.count
        p50 = rank(0.50)
        p90 = rank(0.90)
        p99 = rank(0.99)
        max = sorted[sorted.count - 1]
    }
}

extension Array where Element == Double {
    /// The median, or 0 for an empty array.
    var median: Double {
        guard !isEmpty else { return 0 }
        let sorted = self.sorted()
        return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
    }
}
