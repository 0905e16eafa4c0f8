import Foundation

extension EmbeddedPostgres {
    /// The text of `scorecast.conf`, rewritten on every start: how the server is reached,
    /// durability, the settings chosen for scorecast's workload, then the operator's `extra`
    /// lines (later lines win, so they override ours).
    ///
    /// The workload is many small concurrent write transactions (ingest group commits, worker
    /// claims and completions: ~27 WAL records, ~4 KB of WAL per broadcast), whose top waits
    /// are the WAL flush at commit (`IO:WALSync`) and the WAL write lock (`LWLock:WALWrite`).
    /// Durable stays durable: fsync, synchronous commit and full-page writes stay on; these
    /// settings only change how WAL is buffered and compressed and how often checkpoints come.
    static func settingsText(socketDirectory: String, durable: Bool, walCompression: String, extra: [PostgresServerSetting]) -> String {
        var text = """
            listen_addresses = ''
            port = \(socketPort)
            unix_socket_directories = '\(socketDirectory.replacingOccurrences(of: "'", with: "''"))'
            unix_socket_permissions = 0700
            max_connections = 200
            fsync = \(durable ? "on" : "off")
            synchronous_commit = \(durable ? "on" : "off")
            full_page_writes = \(durable ? "on" : "off")
            # scorecast's outbox is rewritten many times a second; the default one-minute pause
            # between autovacuum rounds lets it bloat to many times its size meanwhile.
            autovacuum_naptime = 5s
            # commit_delay stays 0: a 400 µs group-flush delay was measured against it and lost
            # at overload (fewer events/s posted, higher alerting p99; docs/performance-log.md).
            # Compresses the full-page images written at a page's first change after a
            # checkpoint, most of the WAL's bytes on update-heavy tables; lz4 costs little CPU.
            wal_compression = \(walCompression)
            # Many clients commit at once: the docs advise a few MB at least (auto-tuning gives
            # 4MB with 128MB of shared_buffers); 16MB is one segment, the auto-tuned value's cap.
            wal_buffers = 16MB
            # Fewer checkpoints, so fewer full-page images: the default 1GB starts one every
            # ~530 MB of WAL, at ~4 KB per broadcast every minute at 2,000 broadcasts/s. Costs
            # disk (pg_wal up to about this) and a longer crash recovery, not durability.
            max_wal_size = 4GB
            checkpoint_timeout = 15min
            # Keeps WAL segments for reuse instead of creating (and zero-filling) new ones.
            min_wal_size = 1GB
            # shared_buffers stays at Postgres' 128MB: the hot tables with their indexes (outbox,
            # channels, games, budgets) measured ~20 MiB in the benchmark, and serve shares the box.

            """
        if !extra.isEmpty {
            text += "# SCORECAST_EMBEDDED_POSTGRES_SETTINGS: the operator's, after scorecast's so they win.\n"
            text += extra.map { $0.configurationLine + "\n" }.joined()
        }
        return text
    }

    /// The best `wal_compression` a server supports: `lz4` from Postgres 15 when it was built
    /// with lz4 (`pg_config --configure` lists `--with-lz4`), else `pglz`; before 15 the
    /// setting was a boolean (`on` is pglz).
    static func walCompression(majorVersion: Int?, configureFlags: String?) -> String {
        guard let majorVersion, majorVersion >= 15 else { return "on" }
        return configureFlags?.contains("--with-lz4") == true ? "lz4" : "pglz"
    }
}
