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
        guard let fields = statFields("/proc/\(pid)/stat"), fields.count > 21, let rssPages = Int(fields[21]),
              let cpu = cpuSeconds(fields) else { return nil }
        return ProcessSample(cpuSeconds: cpu, rssBytes: rssPages * pageSize)
    }

    /// The fields of a `stat` file from field 3 (state) on: the command name (field 2) is in
    /// parentheses and may hold spaces, so the split starts after the last ')'.
    private static func statFields(_ path: String) -> [Substring]? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        guard let data = try? handle.readToEnd(), let text = String(data: data, encoding: .utf8),
              let close = text.lastIndex(of: ")") else { return nil }
        return text[text.index(after: close)...].split(separator: " ")
    }

    /// User plus system CPU seconds from `stat` fields: utime is field 14, stime 15 (proc(5)).
    private static func cpuSeconds(_ fields: [Substring]) -> Double? {
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        return (user + system) / ticksPerSecond
    }

    private static func cpuSeconds(statPath: String) -> Double? { statFields(statPath).flatMap(cpuSeconds) }

    /// CPU seconds so far of the threads of `pid` whose name (`/proc/<pid>/task/<tid>/comm`)
    /// is `name`, or `nil` when it has none.
    static func threadsCPUSeconds(pid: pid_t, named name: String) -> Double? {
        guard let tasks = try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task") else { return nil }
        var seconds: Double?
        for task in tasks {
            let folder = "/proc/\(pid)/task/\(task)"
            guard let comm = try? String(contentsOfFile: folder + "/comm", encoding: .utf8),
                  comm.trimmingCharacters(in: .newlines) == name,
                  let cpu = cpuSeconds(statPath: folder + "/stat") else { continue }
            seconds = (seconds ?? 0) + cpu
        }
        return seconds
    }

    /// This process's sample.
    static func sampleSelf() -> ProcessSample? { sample(pid: getpid()) }

    /// Every process whose parent is `pid` (e.g. the postgres backends under the postmaster).
    static func children(of pid: pid_t) -> [pid_t] {
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc") else { return [] }
        var result: [pid_t] = []
        for entry in entries {
            // fields[1] is field 4, the parent's pid.
            guard let child = pid_t(entry), let fields = statFields("/proc/\(child)/stat") else { continue }
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
