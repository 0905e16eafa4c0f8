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

    @Test func unlimitedCountsToTheMinuteInBoundedMemory() {
        var ledger = BudgetLedger()
        for second in 0..<10_000 {
            #expect(ledger.admit(channelID: "a", priority: 10, budget: nil, now: Double(second)) == .allowed)
        }
        // More sends than kept times: counted to the minute. 9,999 is in minute 166; minutes
        // 107…166 hold seconds 6,420…9,999.
        #expect(ledger.usage["a"]?.used(now: 9_999) == 3580)
        #expect(ledger.usage["a"]?.used(now: 1_000_000) == 0)
        #expect(ledger.usage["a"]?.priorityTenSends == 10_000)
    }

    @Test func loweredBudgetFreesWhenEnoughSendsLeave() {
        var ledger = BudgetLedger()
        for second in 0..<5 {
            #expect(ledger.admit(channelID: "a", priority: 10, budget: 5, now: Double(second) * 10) == .allowed)
        }
        // Sends at 0, 10, 20, 30, 40; with a budget of 2 the window has room once 30 has left.
        #expect(ledger.admit(channelID: "a", priority: 10, budget: 2, now: 100) == .throttled(freesAt: 30 + 3600))
        #expect(ledger.admit(channelID: "a", priority: 10, budget: 0, now: 100) == .throttled(freesAt: 100 + 3600))
    }
}
