@testable import APNsSimulator
import Synchronization
import Testing

/// The register of held answers: what is parked waits for a release, never for a timer.
@Suite struct HeldAnswersTests {
    /// Counts the releases that ran.
    final class Releases: Sendable {
        let count = Mutex(0)
        var value: Int { count.withLock { $0 } }
        func release() { count.withLock { $0 += 1 } }
    }

    @Test func parkedAnswersWaitUntilTheHoldIsLifted() {
        let held = HeldAnswers()
        let releases = Releases()
        held.setHolding(true)
        held.park(releases.release)
        held.park(releases.release)
        #expect(held.count == 2)
        #expect(releases.value == 0)
        held.setHolding(false)
        #expect(releases.value == 2)
        #expect(held.count == 0)
    }

    @Test func releaseAllKeepsHoldingLaterAnswers() {
        let held = HeldAnswers()
        let releases = Releases()
        held.setHolding(true)
        held.park(releases.release)
        #expect(held.releaseAll() == 1)
        #expect(releases.value == 1)
        held.park(releases.release)
        #expect(held.count == 1, "the hold is still on")
        #expect(releases.value == 1)
    }

    @Test func anAnswerParkedAfterTheHoldWasLiftedGoesAtOnce() {
        let held = HeldAnswers()
        let releases = Releases()
        held.park(releases.release)
        #expect(releases.value == 1)
        #expect(held.count == 0)
    }
}
