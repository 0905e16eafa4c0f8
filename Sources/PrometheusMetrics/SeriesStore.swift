import Synchronization

/// The series of one metric, keyed by label values, behind a lock, with a cap on the number
/// of distinct label combinations: once full, new combinations go to the overflow series whose
/// every label value is `other`, and the redirected observations are counted.
final class SeriesStore<Value: Sendable>: Sendable {
    /// The label value every label of the overflow series carries.
    static var overflowValue: String { "other" }

    let labelNames: [String]
    let maxSeries: Int
    private let initial: Value
    private let state: Mutex<State>

    private struct State {
        var series: [[String]: Value] = [:]
        var overflowed: UInt64 = 0
    }

    init(labelNames: [String], maxSeries: Int, initial: Value) {
        self.labelNames = labelNames
        self.maxSeries = max(1, maxSeries)
        self.initial = initial
        var state = State()
        // A metric without labels always has its one series, so it renders as 0 before use.
        if labelNames.isEmpty { state.series[[]] = initial }
        self.state = Mutex(state)
    }

    /// Applies `body` to the series for `key`, creating it (or redirecting to overflow) as needed.
    func update(_ key: [String], _ body: (inout Value) -> Void) {
        state.withLock { state in
            var target = key
            if state.series[key] == nil, state.series.count >= maxSeries {
                target = Array(repeating: Self.overflowValue, count: labelNames.count)
                state.overflowed += 1
            }
            body(&state.series[target, default: initial])
        }
    }

    /// The value of one series, if it exists.
    func value(_ key: [String]) -> Value? {
        state.withLock { $0.series[key] }
    }

    /// Replaces every series at once (for gauges recomputed from a full snapshot); values
    /// beyond the cap are combined into the overflow series with `merge`.
    func replaceAll(_ values: [[String]: Value], merge: (Value, Value) -> Value) {
        state.withLock { state in
            var kept: [[String]: Value] = labelNames.isEmpty ? [[]: initial] : [:]
            for (key, value) in values.sorted(by: { Self.less($0.key, $1.key) }) {
                if kept[key] == nil, kept.count >= maxSeries {
                    let other = Array(repeating: Self.overflowValue, count: labelNames.count)
                    kept[other] = kept[other].map { merge($0, value) } ?? value
                    state.overflowed += 1
                } else {
                    kept[key] = value
                }
            }
            state.series = kept
        }
    }

    /// Every series, sorted by label values so that renders are stable.
    func snapshot() -> [(key: [String], value: Value)] {
        let series = state.withLock { $0.series }
        return series.map { (key: $0.key, value: $0.value) }.sorted { Self.less($0.key, $1.key) }
    }

    /// How many observations were folded into the overflow series.
    var overflowCount: UInt64 {
        state.withLock { $0.overflowed }
    }

    private static func less(_ lhs: [String], _ rhs: [String]) -> Bool {
        lhs.lexicographicallyPrecedes(rhs)
    }
}
