@testable import Delivery
import Foundation
import Postgres
import Testing
import TestSupport

/// One claim at a time per process, and none that the last one already answered: a NOTIFY
/// wakes every idle worker, and only one of them claims.
@Suite struct ClaimTurnsTests {
    static let tookAll = ClaimRecord(generation: 5, began: 10, tookAll: true)

    @Test func aClaimThatTookAllAndBeganAtTheNewsOrLaterCoversTheNews() {
        #expect(ClaimTurns.covers(Self.tookAll, reason: .news, seen: 5, decided: 20))
        #expect(ClaimTurns.covers(Self.tookAll, reason: .news, seen: 4, decided: 20))
        // News newer than the claim: it may not have seen those rows.
        #expect(!ClaimTurns.covers(Self.tookAll, reason: .news, seen: 6, decided: 1))
    }

    @Test func aFullFailedOrProbingClaimCoversNothing() {
        var full = Self.tookAll
        full.tookAll = false
        #expect(!ClaimTurns.covers(full, reason: .news, seen: 1, decided: 1))
        #expect(!ClaimTurns.covers(nil, reason: .news, seen: 0, decided: 0))
    }

    @Test func aRowFallingDueIsCoveredOnlyByAClaimThatBeganAfterTheWorkerDecided() {
        #expect(ClaimTurns.covers(Self.tookAll, reason: .dueTime, seen: 5, decided: 9))
        #expect(!ClaimTurns.covers(Self.tookAll, reason: .dueTime, seen: 5, decided: 10))
        #expect(!ClaimTurns.covers(Self.tookAll, reason: .dueTime, seen: 5, decided: 11))
    }

    @Test func afterAFullClaimTheWorkerAlwaysClaimsAgain() {
        #expect(!ClaimTurns.covers(Self.tookAll, reason: .more, seen: 0, decided: 0))
    }

    @Test func waitersClaimOneAfterAnotherAndSkipOnceCovered() async {
        let turns = ClaimTurns()
        let first = await turns.take(reason: .news, seen: 1, generation: { 1 })
        #expect(first != nil)
        // A second worker with the same news waits for the first claim, then skips it.
        let second = Task { await turns.take(reason: .news, seen: 1, generation: { 1 }) }
        // A worker whose last claim was full claims after the first, whatever it covered.
        let third = Task { await turns.take(reason: .more, seen: 1, generation: { 1 }) }
        if let first { turns.finish(first, tookAll: true) }
        // The third may take its turn before the second looks again; the second then waits for
        // that claim too. So the third's claim is finished before the second is awaited (awaited
        // first, the second could wait on a turn this test had not yet finished).
        let claim = await third.value
        #expect(claim?.generation == 1)
        if let claim {
            turns.finish(claim, tookAll: true)
            turns.finish(claim, tookAll: false)  // a second call changes nothing
        }
        #expect(await second.value == nil, "covered by the first claim or the third")
        #expect(await turns.take(reason: .news, seen: 1, generation: { 1 }) == nil)
    }

    /// Counted through the pool's statistics: 4 idle workers, 12 rows announced one at a time
    /// (each sent before the next is written). Without turns each NOTIFY made 4 claims, 3 of
    /// them empty (40 empty claims in all when this test ran with turns switched off); now one
    /// claim per row.
    @Test func oneNotifyMakesOneClaimNotOnePerWorker() async throws {
        try await DeliveryHarness.with { harness in
            let settings = harness.ownNotifyChannel(harness.settings(workers: 4, poll: .seconds(3_600)))
            let workers = harness.makePool(settings)
            var channels: [(id: Int64, apnsID: String)] = []
            for _ in 0..<12 { channels.append(try await harness.createChannel()) }
            try await harness.running(workers) {
                for (index, channel) in channels.enumerated() {
                    try await harness.enqueue(channelID: channel.id, score: index, timestamp: 1_750_000_000 + Int64(index), notify: false)
                    try await harness.pool.notify(channel: settings.notifyChannel)
                    try await eventually("row \(index) is sent and completed") {
                        try await harness.outboxCount() == 0 && workers.statistics.sent == index + 1
                    }
                }
            }
            let totals = workers.statistics
            #expect(totals.sent == 12)
            // One claim per worker per NOTIFY would leave 36 or more empty. Allowed: the first
            // claim at start, before any row was written, and an idle worker's due-time look
            // that decided before the NOTIFY's claim began (it cannot know that claim took its
            // row) — a race a loaded machine makes now and then, never once per NOTIFY.
            #expect(totals.emptyClaims <= 3, "\(totals.emptyClaims) empty claims, \(totals.claimsSkipped) skipped")
            // The other workers woke and were turned away: on a quiet machine all three per
            // NOTIFY; on a loaded one a worker still busy with the last send is not woken at all.
            #expect(totals.claimsSkipped >= 12, "\(totals.claimsSkipped) claims skipped")
        }
    }
}
