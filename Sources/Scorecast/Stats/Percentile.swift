/// Percentiles of a set of observations, computed the way PostgreSQL's `percentile_cont` does
/// (linear interpolation between the two nearest ranks), so figures computed in Swift and in SQL
/// agree.
public enum Percentile {
    /// The `fraction` percentile (0…1, e.g. 0.99) of `values`; `nil` when there is no finite
    /// value or `fraction` is outside 0…1. NaN and infinite values are ignored.
    public static func value(of values: [Double], at fraction: Double) -> Double? {
        value(ofSorted: values.filter(\.isFinite).sorted(), at: fraction)
    }

    /// Like `value(of:at:)` for values already sorted ascending and finite (no copy, no sort).
    public static func value(ofSorted sorted: [Double], at fraction: Double) -> Double? {
        guard !sorted.isEmpty, fraction >= 0, fraction <= 1 else { return nil }
        let position = fraction * Double(sorted.count - 1)
        let lower = Int(position.rounded(.down))
        let upper = min(lower + 1, sorted.count - 1)
        let weight = position - Double(lower)
        return sorted[lower] + (sorted[upper] - sorted[lower]) * weight
    }
}
