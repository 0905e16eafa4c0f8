@testable import APNsSimulator
import Testing

/// Fault decisions per request.
@Suite struct FaultPlanTests {
    @Test func countersRunDown() {
        var plan = FaultPlan(faults: SimulatorFaults(failNext: 2, failStatus: 500, resetNext: 1))
        #expect(plan.isActive)
        #expect(plan.decide { 99 } == .reset)
        #expect(plan.decide { 99 } == .fail(status: 500))
        #expect(plan.decide { 99 } == .fail(status: 500))
        #expect(plan.decide { 99 } == FaultPlan.Decision.none)
        #expect(!plan.isActive)
    }

    @Test func percentagesUseTheRoll() {
        var plan = FaultPlan(faults: SimulatorFaults(failPercent: 25))
        #expect(plan.decide { 24.9 } == .fail(status: 503))
        #expect(plan.decide { 25 } == FaultPlan.Decision.none)
        var black = FaultPlan(faults: SimulatorFaults(blackHole: true))
        #expect(black.decide { 0 } == .blackHole)
    }

    @Test func validation() {
        #expect(throws: SimulatorError.self) { try SimulatorFaults(failPercent: 101).validate() }
        #expect(throws: SimulatorError.self) { try SimulatorFaults(failStatus: 502).validate() }
        #expect(throws: SimulatorError.self) { try SimulatorFaults(goAwayAfterStreams: 0).validate() }
        #expect(throws: SimulatorError.self) { try SimulatorFaults(maxConcurrentStreams: 0).validate() }
    }
}
