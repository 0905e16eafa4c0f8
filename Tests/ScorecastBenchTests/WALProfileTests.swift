import Foundation
import Postgres
import Testing
import TestSupport
@testable import scorecast_bench

@Suite("The profile's WAL split by table (pg_walinspect)")
struct WALProfileTests {
    @Test("each relation's records and bytes are counted per broadcast, under the relation's name and the record's kind")
    func splitsByRelation() async throws {
        let database = try await TestDatabase.shared()
        try await database.enableWALInspection()
        try await database.withPool(maxConnections: 1) { pool in try await splitsByRelation(pool) }
    }

    private func splitsByRelation(_ pool: PostgresPool) async throws {
        // The tests' server does not wait for WAL at commit; this session does, so that the
        // records below are flushed, as pg_walinspect reads only flushed WAL.
        _ = try await pool.execute("SET synchronous_commit = on")
        let table = "wal_probe_" + UUID().uuidString.prefix(8).lowercased()
        _ = try await pool.execute("CREATE TABLE \(identifier: table) (id bigint, note text)")
        let start = await Profiler.resetDatabaseStatistics(pool)
        #expect(start != nil)
        // 200 rows, one heap insert record each; counted per 100 "broadcasts": 2 each.
        _ = try await pool.execute("INSERT INTO \(identifier: table) SELECT g, 'row ' || g FROM generate_series(1, 200) g")
        _ = try await pool.execute("UPDATE \(identifier: table) SET note = 'changed' WHERE id <= 50")
        // Every pair: the tests beside this one write WAL of their own in the same range, and
        // could push the probe's pairs out of the report's top 25.
        let text = await Profiler.walByRelation(pool, from: start, broadcasts: 100, top: .max)
        let lines = text.split(separator: "\n").map(String.init)
        let inserts = try #require(lines.first { $0.hasSuffix("\t\(table)\tHeap/INSERT") }, "\(text)")
        #expect(inserts.hasPrefix("2.00\t"))
        // 50 updates, in place or not: half a record per broadcast between the two kinds.
        let updates = lines.filter { $0.hasSuffix("\t\(table)\tHeap/UPDATE") || $0.hasSuffix("\t\(table)\tHeap/HOT_UPDATE") }
        let updateRecords = updates.compactMap { Double($0.split(separator: "\t")[0]) }.reduce(0, +)
        #expect(abs(updateRecords - 0.5) < 0.001, "\(text)")
        #expect(lines[0].hasPrefix("WAL of the profiled run by relation and record kind, per broadcast (100 broadcasts;"))
    }

    @Test("without a start position there is nothing to read, and it says so")
    func noStart() async throws {
        try await TestDatabase.shared().withPool(maxConnections: 1) { pool in
            #expect(await Profiler.walByRelation(pool, from: nil, broadcasts: 10) == "(no WAL position was read at the start)")
        }
    }
}
