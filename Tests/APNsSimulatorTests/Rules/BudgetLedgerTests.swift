@testable import APNsSimulator
import Testing

/// Rolling-hour priority-10 budgets.
@Suite struct BudgetLedgerTests {
    @Test func rollingHourPerChannel() {
        var ledger = BudgetLedger()
        let start = 1_000_000.0
        for minute in 0..<3 {
            #expect(ledger.admit(channelID: "a", priority: 10, budget: 3, now: start + Double(minute) * 60) == .allowed)
        }
        #expect(ledger.admit(channelID: "a", priority: 10, budget: 3, now: start + 300) == .throttled(freesAt: start + 3600))
        #expect(ledger.admit(channelID: "a", priority: 5, budget: 3, now: start + 300) == .allowed)
        #expect(ledger.admit(channelID: "b", priority: 10, budget: 3, now: start + 300) == .allowed)
        #expect(ledger.admit(channelID: "a", priority: 10, budget: 3, now: start + 3600) == .allowed)
        let usage = ledger.usage["a"]
        #expect(usage?.used(now: start + 3600) == 3)
        #expect(usage?.priorityTenSends == 4)
        #expect(usage?.otherSends == 1)
        #expect(usage?.throttled == 1)
        #expect(usage?.oldestExpiry(now: start + 3600) == start + 60 + 3600)
    }

    @Test func unlimitedStillCounts() {
        var ledger = BudgetLedger()
        for second in 0..<10_000 {
            #expect(ledger.admit(channelID: "a", priority: 10, budget: nil, now: Double(second)) == .allowed)
        }
        #expect(ledger.usage["a"]?.used(now: 9_999) == 3600)
    }
}
