import ChildProcesses
import Foundation
import Postgres

/// Profile evidence for the report: `perf` samples of a process, and Postgres'
/// pg_stat_statements and pg_stat_wal for the statements and commits behind a run.
enum Profiler {
    /// Whether `perf` is installed.
    static var perfAvailable: Bool {
        ["/usr/bin/perf", "/usr/local/bin/perf"].contains { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Starts `perf record` on `pid` for `seconds` (call graphs, 499 Hz).
    static func record(pid: pid_t, seconds: Int, name: String, folder: String) throws -> ChildProcess {
        try ChildProcess(name: "perf", executable: "perf",
                         arguments: ["record", "-F", "499", "-g", "-p", String(pid), "-o", folder + "/\(name).perf.data",
                                     "--", "sleep", String(seconds)],
                         stdoutPath: folder + "/\(name).perf.out", stderrPath: folder + "/\(name).perf.err")
    }

    /// Waits for a recording to end and summarises it: CPU by library, then the hottest symbols.
    static func summary(of recording: ChildProcess, name: String, folder: String) async -> String {
        _ = await recording.waitForExit(timeout: .seconds(120))
        let data = folder + "/\(name).perf.data"
        let byLibrary = await report(data, ["--sort", "dso", "--percent-limit", "1"], folder: folder, label: "\(name)-dso")
        let bySymbol = await report(data, ["--sort", "dso,sym", "--percent-limit", "0.7"], folder: folder, label: "\(name)-sym")
        return "perf record -F 499 -g -p <pid> (\(name)); share of samples by library:\n" + byLibrary
            + "\nhottest symbols:\n" + bySymbol
    }

    private static func report(_ data: String, _ sort: [String], folder: String, label: String) async -> String {
        guard let process = try? ChildProcess(
            name: "perf report", executable: "perf",
            arguments: ["report", "-i", data, "--no-children", "--stdio", "-g", "none"] + sort,
            stdoutPath: folder + "/\(label).txt", stderrPath: folder + "/\(label).err") else { return "(perf report failed to start)" }
        _ = await process.waitForExit(timeout: .seconds(120))
        let lines = process.standardOutput.split(separator: "\n").filter { $0.contains("%") && !$0.hasPrefix("#") }
        return lines.prefix(25).map { line in
            // Long mangled Swift names: keep the start, which names module, type and function.
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            return trimmed.count > 150 ? String(trimmed.prefix(150)) + "…" : trimmed
        }.joined(separator: "\n")
    }

    /// What Postgres' busy backends were doing, sampled from `pg_stat_activity` every 20 ms for
    /// `seconds`: on CPU (no wait event), waiting for a lock, for the WAL flush, for the
    /// client… by statement. CPU profiles cannot show time spent waiting; this can.
    static func sampleWaits(_ pool: PostgresPool, seconds: Int) async -> String {
        var counts: [String: Int] = [:]
        var samples = 0
        let end = ContinuousClock.now + .seconds(seconds)
        while ContinuousClock.now < end {
            guard let rows = try? await pool.query("""
                SELECT coalesce(wait_event_type || ':' || wait_event, 'CPU') AS waiting,
                       left(regexp_replace(query, '\\s+', ' ', 'g'), 60) AS statement
                FROM pg_stat_activity
                WHERE state = 'active' AND backend_type = 'client backend' AND pid <> pg_backend_pid()
                """) else { break }
            samples += 1
            for row in rows {
                let waiting = (try? row.decode("waiting", as: String.self)) ?? "?"
                let statement = (try? row.decode("statement", as: String.self)) ?? ""
                counts[waiting + "\t" + statement, default: 0] += 1
            }
            try? await Task.sleep(for: .milliseconds(20))
        }
        guard samples > 0 else { return "(pg_stat_activity could not be sampled)" }
        var lines = ["pg_stat_activity every 20 ms, \(samples) samples; active backends per sample by wait and statement (CPU = no wait event):"]
        for (key, count) in counts.sorted(by: { $0.value > $1.value }).prefix(15) {
            lines.append(String(format: "%.2f\t", Double(count) / Double(samples)) + key)
        }
        return lines.joined(separator: "\n")
    }

    /// Clears pg_stat_statements and pg_stat_wal; returns where the WAL stands, from which
    /// ``walByRelation(_:from:broadcasts:)`` reads the run's records.
    static func resetDatabaseStatistics(_ pool: PostgresPool) async -> String? {
        _ = try? await pool.query("SELECT pg_stat_statements_reset()")
        _ = try? await pool.query("SELECT pg_stat_reset_shared('wal')")
        return try? await pool.query("SELECT pg_current_wal_insert_lsn()::text AS lsn").first?.decode("lsn", as: String.self)
    }

    /// The WAL written since `start`, by the relation of each record's first block and the
    /// record's kind, with the share of full-page images, per broadcast: which table's writes
    /// cost what (pg_walinspect; a record that touches several relations counts for the first);
    /// the `top` relation and kind pairs that wrote the most bytes.
    static func walByRelation(_ pool: PostgresPool, from start: String?, broadcasts: Double, top: Int = 25) async -> String {
        guard let start else { return "(no WAL position was read at the start)" }
        let rows: [PostgresRow]
        do {
            rows = try await pool.query("""
                WITH r AS (
                    SELECT resource_manager || '/' || regexp_replace(record_type, '\\+INIT$', '') AS kind, record_length, fpi_length,
                           (regexp_match(block_ref, 'rel \\d+/\\d+/(\\d+)'))[1]::oid AS filenode
                    FROM pg_get_wal_records_info(\(start)::pg_lsn, pg_current_wal_flush_lsn())
                )
                SELECT COALESCE(c.relname, CASE WHEN r.filenode IS NULL THEN '(none)' ELSE 'filenode ' || r.filenode END) AS relation,
                       r.kind, count(*)::bigint AS records, sum(r.record_length)::bigint AS bytes, sum(r.fpi_length)::bigint AS fpi
                FROM r LEFT JOIN pg_class c ON c.relfilenode = r.filenode AND r.filenode <> 0
                GROUP BY 1, 2 ORDER BY bytes DESC
                """)
        } catch {
            // Most often the extension is missing (the Postgres build has no contrib); say why.
            return "(the WAL split could not be read: \(error))"
        }
        let per = max(broadcasts, 1)
        let totalRecords = rows.reduce(0) { $0 + ((try? $1.decode("records", as: Int.self)) ?? 0) }
        let totalBytes = rows.reduce(0) { $0 + ((try? $1.decode("bytes", as: Int.self)) ?? 0) }
        var lines = [String(format: "WAL of the profiled run by relation and record kind, per broadcast (%.0f broadcasts; %.1f records, %.0f bytes each in all):",
                            broadcasts, Double(totalRecords) / per, Double(totalBytes) / per),
                     "records/broadcast\tbytes/broadcast\tof it full-page images\trelation\tkind"]
        for row in rows.prefix(top) {
            let value = { (column: String) in Double((try? row.decode(column, as: Int.self)) ?? 0) }
            let relation = (try? row.decode("relation", as: String.self)) ?? "?"
            let kind = (try? row.decode("kind", as: String.self)) ?? "?"
            lines.append(String(format: "%.2f\t%.0f\t%.0f\t", value("records") / per, value("bytes") / per, value("fpi") / per)
                         + relation + "\t" + kind)
        }
        return lines.joined(separator: "\n")
    }

    /// The statements that took the most time since the reset, and the WAL writes and syncs.
    static func databaseSummary(_ pool: PostgresPool, seconds: Double) async -> String {
        var lines = ["pg_stat_statements, top statements by total time (calls, total ms executing, mean ms, rows, plans, total ms planning, statement):"]
        if let rows = try? await pool.query("""
            SELECT calls, round(total_exec_time)::bigint AS total_ms, round(mean_exec_time::numeric, 3)::float8 AS mean_ms,
                   rows, plans, round(total_plan_time)::bigint AS plan_ms,
                   left(regexp_replace(query, '\\s+', ' ', 'g'), 140) AS statement
            FROM pg_stat_statements ORDER BY total_exec_time + total_plan_time DESC LIMIT 12
            """) {
            for row in rows {
                let value = { (column: String) in (try? row.decode(column, as: Int.self)) ?? 0 }
                let mean = (try? row.decode("mean_ms", as: Double.self)) ?? 0
                let text = (try? row.decode("statement", as: String.self)) ?? ""
                lines.append("\(value("calls"))\t\(value("total_ms"))\t\(String(format: "%.3f", mean))\t\(value("rows"))\t"
                             + "\(value("plans"))\t\(value("plan_ms"))\t\(text)")
            }
        } else {
            lines.append("(pg_stat_statements unavailable)")
        }
        if let rows = try? await pool.query("""
            SELECT relname, pg_total_relation_size(relid)::bigint AS bytes, n_live_tup::bigint AS live, n_dead_tup::bigint AS dead,
                   n_tup_upd::bigint AS updates, n_tup_hot_upd::bigint AS hot, autovacuum_count::bigint AS vacuums
            FROM pg_stat_user_tables WHERE relname IN ('outbox', 'channels', 'games', 'budget_ledger') ORDER BY relname
            """) {
            lines.append("tables (size with indexes, live/dead rows, updates and HOT share, autovacuums):")
            for row in rows {
                let name = (try? row.decode("relname", as: String.self)) ?? "?"
                let value = { (column: String) in (try? row.decode(column, as: Int.self)) ?? 0 }
                let updates = value("updates")
                lines.append(String(format: "  %@: %.1f MiB, %d live / %d dead, %d updates (%.0f %% HOT), %d autovacuums",
                                    name, Double(value("bytes")) / 1_048_576, value("live"), value("dead"), updates,
                                    updates > 0 ? Double(value("hot")) / Double(updates) * 100 : 0, value("vacuums")))
            }
        }
        if let row = try? await pool.query("SELECT wal_records, wal_bytes::bigint AS wal_bytes, wal_write, wal_sync FROM pg_stat_wal").first {
            let syncs = (try? row.decode("wal_sync", as: Int.self)) ?? 0
            let records = (try? row.decode("wal_records", as: Int.self)) ?? 0
            let bytes = (try? row.decode("wal_bytes", as: Int.self)) ?? 0
            lines.append(String(format: "pg_stat_wal: %d records, %.1f MiB, %d WAL syncs (%.0f fsyncs/s over %.0f s)",
                                records, Double(bytes) / 1_048_576, syncs, Double(syncs) / max(seconds, 1), seconds))
        }
        if let row = try? await pool.query("""
            SELECT checkpoints_timed::bigint AS timed, checkpoints_req::bigint AS requested, buffers_checkpoint::bigint AS by_checkpoint,
                   buffers_clean::bigint AS by_bgwriter, buffers_backend::bigint AS by_backends FROM pg_stat_bgwriter
            """).first {
            let value = { (column: String) in (try? row.decode(column, as: Int.self)) ?? 0 }
            // Cumulative since the cluster started: checkpoints requested by WAL volume
            // (max_wal_size) against timed ones, and who wrote dirty buffers out.
            lines.append(String(format: "pg_stat_bgwriter since start: %d checkpoints timed, %d requested; buffers written by checkpoints %d, background writer %d, backends %d",
                                value("timed"), value("requested"), value("by_checkpoint"), value("by_bgwriter"), value("by_backends")))
        }
        return lines.joined(separator: "\n")
    }
}
