/// Turns the configured faults into a decision per request, counting down the "next N" ones.
/// Pure apart from the random draw, which the caller supplies.
struct FaultPlan: Sendable {
    /// What to do to one request before (or instead of) judging it.
    enum Decision: Equatable {
        /// Nothing: judge the request normally.
        case none
        /// Answer with 500 or 503 at once.
        case fail(status: Int)
        /// Reset the stream.
        case reset
        /// Never answer.
        case blackHole
    }

    private(set) var faults: SimulatorFaults

    init(faults: SimulatorFaults) { self.faults = faults }

    /// Whether any per-request fault is set (a fast check for the common case).
    var isActive: Bool {
        faults.blackHole || faults.failNext > 0 || faults.failPercent > 0 || faults.resetNext > 0
            || faults.resetPercent > 0 || faults.latencyMilliseconds > 0 || faults.holdAnswers
    }

    /// Replaces the faults.
    mutating func replace(with faults: SimulatorFaults) { self.faults = faults }

    /// The decision for the next request; `roll` returns a uniform value in 0..<100.
    mutating func decide(roll: () -> Double) -> Decision {
        if faults.blackHole { return .blackHole }
        if faults.resetNext > 0 {
            faults.resetNext -= 1
            return .reset
        }
        if faults.resetPercent > 0 && roll() < faults.resetPercent { return .reset }
        if faults.failNext > 0 {
            faults.failNext -= 1
            return .fail(status: faults.failStatus)
        }
        if faults.failPercent > 0 && roll() < faults.failPercent { return .fail(status: faults.failStatus) }
        return .none
    }
}
