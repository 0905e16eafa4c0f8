import Foundation
import Postgres
import Testing
import TestSupport

/// The newest state goes out even when its NOTIFY is lost: Postgres drops notifications for a
/// session that is not listening (before the workers' subscription is active, or while its
/// connection is down). The workers look at the outbox each time the subscription becomes
/// active, so such a row waits for the reconnect, not for the poll interval — here an hour,
/// so only that look can send it before the hang deadline.
@Suite struct ListenGapTests {
    @Test func aRowWhoseNotificationWasLostGoesOutWhenTheSubscriptionIsBack() async throws {
        try await DeliveryHarness.with { harness in
            let settings = harness.ownNotifyChannel(harness.settings(workers: 2, poll: .seconds(3_600)))
            let workers = harness.makePool(settings)
            let channel = try await harness.createChannel()
            try await harness.running(workers) {
                try await eventually("the workers listen") {
                    try await harness.listenerPIDs(on: settings.notifyChannel).count == 1
                }
                // Idle: the workers' first claims and looks are done (twice as many outbox scans
                // as workers).
                try await eventually("the workers are idle") {
                    try await IdleWorkerTests.outboxScans(harness.pool) >= 2 * settings.workers
                }
                // A row whose NOTIFY is lost (none is sent), then the subscription drops.
                try await harness.enqueue(channelID: channel.id, score: 1, timestamp: 1_750_000_001, notify: false)
                for pid in try await harness.listenerPIDs(on: settings.notifyChannel) {
                    _ = try await harness.pool.query("SELECT pg_terminate_backend(\(pid))")
                }
                try await eventually("the row is sent once the workers listen again") {
                    harness.broadcasts(to: channel.apnsID).count == 1
                }
            }
        }
    }
}
