import Foundation

/// CPU time and resident memory of a running process, read from `/proc/<pid>/stat`.
struct ProcessSample: Sendable {
    /// User plus system CPU seconds used so far (every thread).
    let cpuSeconds: Double
    /// Resident set size in bytes.
    let rssBytes: Int
}

/// Reads `/proc`: the only place Linux publishes another process's CPU time and RSS.
enum ProcFS {
    private static let ticksPerSecond = Double(sysconf(Int32(_SC_CLK_TCK)))
    private static let pageSize = Int(sysconf(Int32(_SC_PAGESIZE)))

    /// The CPU time and RSS of `pid`, or `nil` when it is gone or unreadable.
    static func sample(pid: pid_t) -> ProcessSample? {
        guard let handle = FileHandle(forReadingAtPath: "/proc/\(pid)/stat") else { return nil }
        defer { try? handle.close() }
        guard let data = try? handle.readToEnd(), let text = String(data: data, encoding: .utf8) else { return nil }
        // The command name (field 2) is in parentheses and may hold spaces: split after the last ')'.
        guard let close = text.lastIndex(of: ")") else { return nil }
        let fields = text[text.index(after: close)...].split(separator: " ")
        // fields[0] is field 3 (state); utime is field 14, stime 15, rss 24 (proc(5)).
        guard fields.count > 21, let user = Double(fields[11]), let system = Double(fields[12]),
              let rssPages = Int(fields[21]) else { return nil }
        return ProcessSample(cpuSeconds: (user + system) / ticksPerSecond, rssBytes: rssPages * pageSize)
    }

    /// This process's sample.
    static func sampleSelf() -> ProcessSample? { sample(pid: getpid()) }

    /// Every process whose parent is `pid` (e.g. the postgres backends under the postmaster).
    static func children(of pid: pid_t) -> [pid_t] {
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc") else { return [] }
        var result: [pid_t] = []
        for entry in entries {
            guard let child = pid_t(entry),
                  let handle = FileHandle(forReadingAtPath: "/proc/\(child)/stat") else { continue }
            let data = (try? handle.readToEnd()) ?? Data()
            try? handle.close()
            guard let text = String(data: data, encoding: .utf8), let close = text.lastIndex(of: ")") else { continue }
            let fields = text[text.index(after: close)...].split(separator: " ")
            if fields.count > 1, pid_t(fields[1]) == pid { result.append(child) }
        }
        return result
    }

    /// The 1-minute load average.
    static var loadAverage: String {
        ((try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8)) ?? "?").split(separator: " ").first.map(String.init) ?? "?"
    }

    /// The machine's online core count.
    static var coreCount: Int { Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))) }
}
