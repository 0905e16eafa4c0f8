import Postgres

extension TestDatabase {
    /// Makes pg_walinspect's functions callable from every test's schema, for tests that count
    /// the WAL records their statements wrote. The extension is created once per database, in
    /// `pg_catalog`, which every search path includes (created from a test's own schema, it would
    /// land there, out of every other test's reach); a creation racing another is settled by the
    /// extension being there afterwards.
    public func enableWALInspection() async throws {
        let connection = try await PostgresConnection.connect(configuration: configuration, logger: Self.logger)
        do {
            let present: SQL = "SELECT 1 FROM pg_extension WHERE extname = 'pg_walinspect'"
            if try await connection.query(present).isEmpty {
                do {
                    _ = try await connection.execute("CREATE EXTENSION IF NOT EXISTS pg_walinspect SCHEMA pg_catalog")
                } catch {
                    if try await connection.query(present).isEmpty { throw error }
                }
            }
        } catch {
            await connection.close()
            throw error
        }
        await connection.close()
    }
}

extension PostgresPool {
    /// The WAL position where the next record will go, to count from with ``walRecords(from:)``.
    public func walInsertPosition() async throws -> String {
        try await query("SELECT pg_current_wal_insert_lsn()::text AS lsn")[0].decode("lsn")
    }

    /// The WAL records since `start` on the tables of the session's schema, counted by
    /// `"<table> <resource manager>/<record kind>"`. pg_walinspect reads flushed WAL only: a
    /// commit of this pool's with `synchronous_commit = on` after the writes flushes them.
    public func walRecords(from start: String) async throws -> [String: Int] {
        let rows = try await query("""
            WITH r AS (
                SELECT resource_manager || '/' || regexp_replace(record_type, '\\+INIT$', '') AS kind,
                       (regexp_match(block_ref, 'rel \\d+/\\d+/(\\d+)'))[1]::oid AS filenode
                FROM pg_get_wal_records_info(\(start)::pg_lsn, pg_current_wal_flush_lsn())
            )
            SELECT c.relname || ' ' || r.kind AS key, count(*)::int AS records
            FROM r JOIN pg_class c ON c.relfilenode = r.filenode AND c.relnamespace = current_schema()::regnamespace
            GROUP BY 1
            """)
        var counts: [String: Int] = [:]
        for row in rows { counts[try row.decode("key")] = try row.decode("records") }
        return counts
    }
}
