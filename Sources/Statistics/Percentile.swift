/// The project's one percentile definition: PostgreSQL's `percentile_cont` (linear
/// interpolation between the two nearest ranks, position `fraction × (n − 1)`), so figures
/// computed in Swift (roll-ups, the bench) and in SQL (`/v1/stats`) are the same number.
/// Nearest rank is deliberately not offered: on 100 samples it says p99 = the 99th value where
/// `percentile_cont` says 99.01 % of the way to the 100th.
package enum Percentile {
    /// The `fraction` percentile (0…1, e.g. 0.99) of `values`; `nil` when there is no finite
    /// value or `fraction` is outside 0…1. NaN and infinite values are ignored.
    package static func value(of values: [Double], at fraction: Double) -> Double? {
        value(ofSorted: values.filter(\.isFinite).sorted(), at: fraction)
    }

    /// Like `value(of:at:)` for values already sorted ascending and finite (no copy, no sort).
    package static func value(ofSorted sorted: [Double], at fraction: Double) -> Double? {
        guard !sorted.isEmpty, fraction >= 0, fraction <= 1 else { return nil }
        let position = fraction * Double(sorted.count - 1)
        let lower = Int(position.rounded(.down))
        let upper = min(lower + 1, sorted.count - 1)
        let weight = position - Double(lower)
        return sorted[lower] + (sorted[upper] - sorted[lower]) * weight
    }
}
