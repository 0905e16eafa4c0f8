import Foundation
import Postgres
import TestSupport
import Testing

/// What ingest writes to the WAL for an event and a channel's row in the queue, read back with
/// pg_walinspect: a new row is a plain insert (no speculative-insertion confirmation, no lock of
/// its channel's row by a foreign key's check), a pending one an update (no lock taken first).
@Suite struct IngestWALTests {
    @Test func aNewRowIsOneInsertAndAPendingOneAnUpdate() async throws {
        try await TestDatabase.shared().enableWALInspection()
        try await IngestFixture.with { fixture in
            try await fixture.addGame("g1")
            for _ in 1...3 { try await fixture.addChannel(boundTo: "g1") }

            var start = try await fixture.pool.walInsertPosition()
            let first = await fixture.post(EventJSON.event(id: "e1", seq: 1, kind: "score", scoreboard: #"{"home": 1}"#))
            #expect(first.status == 202, "\(first.text)")
            var records = try await Self.flushedRecords(fixture.pool, from: start)
            #expect(records["outbox Heap/INSERT"] == 3, "\(records)")
            #expect(records["outbox Heap/HEAP_CONFIRM"] == nil, "\(records)")
            #expect(records["channels Heap/LOCK"] == nil, "\(records)")
            #expect(records["events Heap/INSERT"] == 1, "\(records)")
            #expect(records["events Heap/HEAP_CONFIRM"] == nil, "\(records)")

            start = try await fixture.pool.walInsertPosition()
            let second = await fixture.post(EventJSON.event(id: "e2", seq: 2, kind: "score", scoreboard: #"{"home": 2}"#))
            #expect(second.status == 202, "\(second.text)")
            records = try await Self.flushedRecords(fixture.pool, from: start)
            #expect((records["outbox Heap/HOT_UPDATE"] ?? 0) + (records["outbox Heap/UPDATE"] ?? 0) == 3, "\(records)")
            #expect(records["outbox Heap/INSERT"] == nil, "\(records)")
            #expect(records["outbox Heap/HEAP_CONFIRM"] == nil, "\(records)")
            #expect(records["outbox Heap/LOCK"] == nil, "read without a lock, written fenced on its revision: \(records)")
        }
    }

    /// The records since `start`, once a synchronous commit has flushed everything before it
    /// (a commit waits for the flush only when its transaction wrote WAL: it logs a message).
    private static func flushedRecords(_ pool: PostgresPool, from start: String) async throws -> [String: Int] {
        try await pool.withConnection { connection in
            try await connection.execute("SET synchronous_commit = on")
            try await connection.execute("SELECT pg_logical_emit_message(true, 'scorecast-test', 'flush')")
        }
        return try await pool.walRecords(from: start)
    }
}
