@testable import Delivery
import Foundation
import Postgres
import Testing
import TestSupport

/// An idle worker sleeps until a NOTIFY or the next due time; it only looks at the due times
/// once per poll interval (the safety net for a lost notification), and claims only when a
/// row is due.
@Suite struct IdleWorkerTests {
    static let poll: Duration = .seconds(10)
    static let floor: Duration = .milliseconds(100)

    @Test func nothingWaitingMeansLookingAgainAfterThePollIntervalWithoutClaiming() {
        #expect(IdleWait.after(secondsUntilNextDue: nil, poll: Self.poll, floor: Self.floor) == IdleWait(timeout: Self.poll, claimAfter: false))
        #expect(IdleWait.after(secondsUntilNextDue: 3_600, poll: Self.poll, floor: Self.floor) == IdleWait(timeout: Self.poll, claimAfter: false))
    }

    @Test func aRowDueWithinThePollIntervalIsClaimedWhenItFallsDue() {
        #expect(IdleWait.after(secondsUntilNextDue: 2.5, poll: Self.poll, floor: Self.floor) == IdleWait(timeout: .milliseconds(2_500), claimAfter: true))
        #expect(IdleWait.after(secondsUntilNextDue: 10, poll: Self.poll, floor: Self.floor) == IdleWait(timeout: Self.poll, claimAfter: true))
    }

    @Test func aRowDueAlreadyIsClaimedAfterTheFloorSoARowHeldElsewhereDoesNotMakeItSpin() {
        #expect(IdleWait.after(secondsUntilNextDue: -4, poll: Self.poll, floor: Self.floor) == IdleWait(timeout: Self.floor, claimAfter: true))
        #expect(IdleWait.after(secondsUntilNextDue: 0.05, poll: Self.poll, floor: Self.floor) == IdleWait(timeout: Self.floor, claimAfter: true))
    }

    @Test func aFailedLookClaimsAfterThePollIntervalSoTheClaimReportsTheFailure() {
        #expect(IdleWait.after(secondsUntilNextDue: nil, lookFailed: true, poll: Self.poll, floor: Self.floor) == IdleWait(timeout: Self.poll, claimAfter: true))
    }

    /// Counted by Postgres, over a window timed by Postgres' clock: scans of this test's own
    /// `outbox` (every claim and every due-time look scans it; the statistics are per table, so
    /// tests running beside this one in other schemas do not count). The loop this replaced
    /// claimed and looked about once a second per worker: 76 scans in the window when this test
    /// ran against it; the idle wait made 6. The bound is 12.
    @Test func anIdlePoolWithTheDefaultSettingsLeavesTheOutboxAloneAndStillAnswersANotify() async throws {
        try await DeliveryHarness.with { harness in
            let defaults = WorkerSettings()
            let settings = harness.ownNotifyChannel(harness.settings(workers: defaults.workers, poll: defaults.pollInterval))
            let workers = harness.makePool(settings)
            let channel = try await harness.createChannel()
            try await harness.running(workers) {
                // The workers' first claims are in the statistics (flushed by their backends)
                // before the window opens.
                try await eventually("the workers' first claims reach the statistics") {
                    try await Self.outboxScans(harness.pool) >= defaults.workers
                }
                let start = try await Self.databaseClock(harness.pool)
                let before = try await Self.outboxScans(harness.pool)
                while try await Self.databaseClock(harness.pool) - start < 20 {
                    try await Task.sleep(for: .milliseconds(500))
                }
                let scans = try await Self.outboxScans(harness.pool) - before
                #expect(scans <= 12, "\(scans) scans of the outbox in 20 s while idle")
                try await harness.enqueue(channelID: channel.id, score: 1, timestamp: 1_750_000_001, notify: false)
                try await harness.pool.notify(channel: settings.notifyChannel)
                try await eventually("the notified row is sent") { harness.broadcasts(to: channel.apnsID).count == 1 }
            }
        }
    }

    /// Sequential and index scans of this schema's `outbox` since the statistics began.
    static func outboxScans(_ pool: PostgresPool) async throws -> Int {
        try await pool.query("""
            SELECT (seq_scan + coalesce(idx_scan, 0))::int8 AS scans FROM pg_stat_user_tables WHERE relid = 'outbox'::regclass
            """)[0].decode("scans")
    }

    /// Postgres' clock, UNIX seconds.
    static func databaseClock(_ pool: PostgresPool) async throws -> Double {
        try await pool.query("SELECT extract(epoch FROM clock_timestamp())::float8 AS now")[0].decode("now")
    }
}
