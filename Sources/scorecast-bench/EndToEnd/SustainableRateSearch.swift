/// Where the highest sustainable event rate lies, from the runs so far, and which rate to try
/// next: the middle of the gap between the highest rate sustained and the lowest rate above it
/// that was not, until the gap is within a tenth of the rate (or 50 events/s) or the step
/// budget is spent.
struct SustainableRateSearch: Sendable, Equatable {
    private(set) var highestSustained: Int?
    private(set) var lowestUnsustained: Int?
    private var stepsLeft: Int

    init(runs: [(rate: Int, sustained: Bool)], steps: Int = 3) {
        stepsLeft = steps
        for run in runs { record(rate: run.rate, sustained: run.sustained) }
    }

    mutating func record(rate: Int, sustained: Bool) {
        if sustained {
            highestSustained = max(highestSustained ?? rate, rate)
        } else if rate > (highestSustained ?? 0) {
            lowestUnsustained = min(lowestUnsustained ?? rate, rate)
        }
        if let high = lowestUnsustained, let low = highestSustained, high <= low { lowestUnsustained = nil }
    }

    /// The next rate to run, or `nil` when the search is done.
    mutating func nextRate() -> Int? {
        guard stepsLeft > 0, let high = lowestUnsustained else { return nil }
        let low = highestSustained ?? 0
        guard high - low > max(50, low / 10) else { return nil }
        stepsLeft -= 1
        return (low + high) / 2 / 50 * 50
    }
}
