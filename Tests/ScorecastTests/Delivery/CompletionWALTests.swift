import Delivery
import DeliveryEngine
import Foundation
import Postgres
import ScorecastCore
import TestSupport
import Testing

/// What completing a batch of accepted sends writes to the WAL, read back with pg_walinspect:
/// each row's delete, delivery, channel update and budget entry, and no row-lock record (a lock
/// taken before a write, or by a foreign key's check, logs one per row beside the writes).
@Suite struct CompletionWALTests {
    @Test func aBatchOfAcceptedSendsIsWrittenWithoutRowLocks() async throws {
        try await TestDatabase.shared().enableWALInspection()
        try await DeliveryDatabase.with(maxConnections: 1) { database in
            let pool = database.pool
            // pg_walinspect reads flushed WAL only: this session's commits wait for the flush.
            try await pool.execute("SET synchronous_commit = on")
            let app = try await database.addApp()
            var channels: [Int64] = []
            for score in 1...5 {
                let channel = try await database.addChannel(appID: app)
                let timestamp = 1_700_000_000 + Int64(score)
                try await database.enqueue(channelID: channel, payload: DeliveryDatabase.payload(score: score, timestamp: timestamp), timestamp: timestamp)
                channels.append(channel)
            }
            let now = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.up) + 1)
            let store = OutboxStore(pool: pool, logger: TestDatabase.logger)
            let claims = try await store.claim(owner: "w-1", limit: 10, lease: .seconds(30), at: now)
            #expect(claims.count == 5)

            let start = try await pool.walInsertPosition()
            let result = try await store.complete(claims.map { Self.accepted($0, at: now) }, owner: "w-1", routineInterval: 0, at: now)
            try await pool.execute("SELECT txid_current()")  // a commit of this session, so all before it is flushed

            #expect(result.deleted == channels)
            #expect(result.fencedOut.isEmpty && result.superseded.isEmpty)
            #expect(result.deliveriesWritten == 5)
            let records = try await pool.walRecords(from: start)
            #expect(records["outbox Heap/DELETE"] == 5, "\(records)")
            #expect(records["deliveries Heap/INSERT"] == 5, "\(records)")
            #expect((records["channels Heap/HOT_UPDATE"] ?? 0) + (records["channels Heap/UPDATE"] ?? 0) == 5, "\(records)")
            #expect(records["budget_ledger Heap/INSERT"] == 5, "\(records)")
            #expect(records["outbox Heap/LOCK"] == nil, "\(records)")
            #expect(records["channels Heap/LOCK"] == nil, "\(records)")
            #expect(records["apps Heap/LOCK"] == nil, "\(records)")
            // What the records wrote: each channel shows the body it was sent.
            for claim in claims {
                let row = try await pool.query("SELECT last_timestamp, shown_payload, shown_at FROM channels WHERE id = \(claim.channelID)")[0]
                #expect(try row.decode("last_timestamp", as: Int64.self) == claim.payloadTimestamp)
                #expect(try row.decode("shown_at", as: Date?.self) == now, "dated by the worker's clock, not the database's")
                #expect(try row.decode("shown_payload", as: String?.self) == String(decoding: claim.payload, as: UTF8.self))
            }
            #expect(try await database.outbox(claims[0].channelID) == nil)
        }
    }

    /// A completion of `claim` that APNs accepted at priority 10, with the row and body it sent.
    private static func accepted(_ claim: ClaimedDelivery, at now: Date) -> DeliveryCompletion {
        var completion = DeliveryCompletion.accepted(claim, budget: .priority10(at: now))
        completion.claimedRow = claim.row
        completion.acceptedBody = claim.payload
        return completion
    }
}
