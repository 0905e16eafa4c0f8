import Foundation

/// What a supervisor needs from the cluster it started: whether its postmaster still runs, why
/// it stopped, and a way to start it again in place.
extension EmbeddedPostgres {
    /// How the server this handle started is doing.
    public enum Condition: Sendable, Equatable {
        /// `start()` has not succeeded, or `stop()` was called: nothing to supervise.
        case notStarted
        /// The postmaster runs.
        case running
        /// The postmaster is gone (exited, killed, or a zombie nobody reaped).
        case stopped(postmasterPID: Int32)
    }

    /// Free space a crashed server needs to recover: room for a few 16 MiB WAL segments and the
    /// end-of-recovery checkpoint. Below it a restart is expected to fail for lack of space.
    public static let spaceNeededToRecover: Int64 = 64 << 20

    /// Whether the postmaster started by this handle still runs.
    public func condition() -> Condition {
        guard let current = running.withLock({ $0 }) else { return .notStarted }
        return Self.isPostgres(pid: current.postmasterPID, dataDirectory: current.layout.data)
            ? .running : .stopped(postmasterPID: current.postmasterPID)
    }

    /// Why the server stopped, in a sentence for the log: its last PANIC or FATAL lines since it
    /// was last ready, and, when its disk is short of room, how much it has and needs.
    public func stopReport() -> String {
        guard let current = running.withLock({ $0 }) else { return "the server is not running" }
        return Self.stopReport(
            logTail: Self.lastBytes(of: current.layout.logFile), freeBytes: Self.freeBytes(at: current.layout.data),
            dataPath: current.layout.data.path)
    }

    /// Starts the server again on the same files, keeping the cluster's lock: a leftover
    /// `postmaster.pid` and socket lock files are removed first. Fails while the old server's
    /// backends still hold its shared memory, or while the disk is full; the caller retries.
    public func restart() async throws(PostgresError) {
        let result: Result<Void, PostgresError> = await withCheckedContinuation { continuation in
            Thread.detachNewThread { [self] in
                continuation.resume(returning: Result { () throws(PostgresError) in
                    try starting.withLock { _ throws(PostgresError) in try restartBlocking() }
                })
            }
        }
        try result.get()
    }

    private func restartBlocking() throws(PostgresError) {
        guard let current = running.withLock({ $0 }) else {
            throw PostgresError(.embeddedServerFailed, "the embedded server was stopped; nothing to restart")
        }
        if Self.isPostgres(pid: current.postmasterPID, dataDirectory: current.layout.data) { return }
        let installation = try PostgresInstallation.find(binDirectory: binDirectory)
        try stopLeftoverServer(current.layout)
        let pid = try launch(current.layout, installation)
        running.withLock { $0?.postmasterPID = pid }
    }

    /// The sentence of ``stopReport()`` from its inputs (pure, for tests).
    static func stopReport(logTail: String, freeBytes: Int64?, dataPath: String) -> String {
        // Only what the server said since it was last ready: older failures were recovered from.
        let sinceReady = logTail.range(of: "database system is ready to accept connections", options: .backwards)
            .map { String(logTail[$0.upperBound...]) } ?? logTail
        // Backends that saw the postmaster vanish say so: a symptom, not a cause.
        let errors = sinceReady.split(separator: "\n")
            .filter { ($0.contains("PANIC:") || $0.contains("FATAL:")) && !$0.contains("unexpected postmaster exit") }
            .suffix(2)
            .map { $0.trimmingCharacters(in: .whitespaces) }
        var report = errors.isEmpty ? "the postmaster is gone and its log says nothing (killed?)" : errors.joined(separator: " | ")
        if let freeBytes, freeBytes < spaceNeededToRecover {
            report += "; disk full: \(dataPath) has \(Self.mebibytes(freeBytes)) free, the server needs at least "
                + "\(Self.mebibytes(spaceNeededToRecover)) to recover: free space or grow the disk"
        } else if errors.contains(where: { $0.contains("No space left on device") }) {
            report += "; it ran out of disk space (\(freeBytes.map(Self.mebibytes) ?? "unknown") free now)"
        }
        return report
    }

    /// Bytes an unprivileged process may still write on the file system holding `url`.
    static func freeBytes(at url: URL) -> Int64? {
        var info = statvfs()
        guard statvfs(url.path, &info) == 0 else { return nil }
        return Int64(info.f_bavail) * Int64(info.f_frsize)
    }

    /// The last `count` bytes of a file, as text (the server's log grows across restarts).
    static func lastBytes(of url: URL, count: Int = 16_384) -> String {
        guard let handle = try? FileHandle(forReadingFrom: url) else { return "" }
        defer { try? handle.close() }
        let size = (try? handle.seekToEnd()) ?? 0
        try? handle.seek(toOffset: size > UInt64(count) ? size - UInt64(count) : 0)
        return String(decoding: (try? handle.readToEnd()) ?? Data(), as: UTF8.self)
    }

    private static func mebibytes(_ bytes: Int64) -> String {
        String(format: "%.1f MiB", Double(bytes) / 1_048_576)
    }
}
