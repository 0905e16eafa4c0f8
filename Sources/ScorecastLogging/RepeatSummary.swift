import Foundation

/// Repeated log lines, summarised: the first line of a cause is written at once; further ones
/// within `interval` are only counted, and when the interval is over one line says how many
/// there were. A failure that repeats every few milliseconds (a database that went away)
/// then costs two lines per cause per interval, not thousands. Pure: the time is a parameter.
///
/// A cause recorded `untilRecovered` is an outage with an end: its first line is written once,
/// each later interval only gets its summary, and ``recovered(cause:_:now:)`` writes the last
/// summary and one line saying it is over.
public struct RepeatSummary: Sendable {
    /// A line to write.
    public struct Line: Sendable, Equatable {
        public var level: LogLevel
        public var message: String
        public var fields: [String: String]

        /// A line at `level`.
        public init(level: LogLevel, message: String, fields: [String: String] = [:]) {
            self.level = level
            self.message = message
            self.fields = fields
        }
    }

    private struct Window {
        var started: Date
        var first: Line
        var repeats: Int
        var lastFields: [String: String]
        /// Every value seen of the fields named to gather (which apps hit a 429…).
        var gathered: [String: Set<String>]
    }

    /// How long repeats of a cause are counted before their summary.
    public let interval: TimeInterval
    private var windows: [String: Window] = [:]
    /// Causes recorded `untilRecovered` whose recovery was not reported yet.
    private var failing: Set<String> = []

    /// A summary counting repeats over `interval` seconds.
    public init(interval: TimeInterval) { self.interval = interval }

    /// Notes a line of `cause` at `now`; returns what to write: the summaries of every cause
    /// whose interval has ended, then this line unless it repeats its cause within the interval.
    /// The summary carries the last line's fields, except those named in `gathering`: for them
    /// it lists every value seen, sorted and comma-separated. With `untilRecovered`, the line is
    /// written only when the cause was not failing already; later ones are counted.
    public mutating func record(
        cause: String, _ line: Line, now: Date, gathering: Set<String> = [], untilRecovered: Bool = false
    ) -> [Line] {
        var lines = flush(now: now)
        let ongoing = untilRecovered && !failing.insert(cause).inserted
        if windows[cause] != nil || ongoing {
            // A still-failing cause whose window ended opens the next one counting this line.
            if windows[cause] == nil { windows[cause] = Window(started: now, first: line, repeats: 0, lastFields: [:], gathered: [:]) }
            windows[cause]?.repeats += 1
            windows[cause]?.lastFields = line.fields
            for name in gathering { if let value = line.fields[name] { windows[cause]?.gathered[name, default: []].insert(value) } }
            return lines
        }
        var gathered: [String: Set<String>] = [:]
        for name in gathering { if let value = line.fields[name] { gathered[name] = [value] } }
        windows[cause] = Window(started: now, first: line, repeats: 0, lastFields: line.fields, gathered: gathered)
        lines.append(line)
        return lines
    }

    /// Notes that `cause` works again at `now`: when it was failing (recorded `untilRecovered`),
    /// returns the summaries that are due, its own summary so far and `line`; otherwise only the
    /// summaries that are due.
    public mutating func recovered(cause: String, _ line: Line, now: Date) -> [Line] {
        var lines = flush(now: now)
        guard failing.remove(cause) != nil else { return lines }
        if let window = windows.removeValue(forKey: cause), let summary = Self.summary(of: window, now: now) { lines.append(summary) }
        lines.append(line)
        return lines
    }

    /// The summaries of the causes whose interval has ended by `now` (those that repeated), in
    /// cause order; those causes start afresh.
    public mutating func flush(now: Date) -> [Line] {
        let ended = windows.filter { now.timeIntervalSince($0.value.started) >= interval }.sorted { $0.key < $1.key }
        var lines: [Line] = []
        for (cause, window) in ended {
            windows[cause] = nil
            if let summary = Self.summary(of: window, now: now) { lines.append(summary) }
        }
        return lines
    }

    /// The line counting `window`'s repeats, if it had any.
    private static func summary(of window: Window, now: Date) -> Line? {
        guard window.repeats > 0 else { return nil }
        var fields = window.lastFields
        for (name, values) in window.gathered { fields[name] = values.sorted().joined(separator: ",") }
        fields["repeated"] = String(window.repeats)
        let seconds = Int(now.timeIntervalSince(window.started).rounded())
        return Line(
            level: window.first.level, message: "\(window.first.message) (\(window.repeats) more in the last \(seconds) s)",
            fields: fields)
    }

    /// When the earliest open interval ends, if any.
    public var nextFlush: Date? { windows.values.map { $0.started.addingTimeInterval(interval) }.min() }
}
