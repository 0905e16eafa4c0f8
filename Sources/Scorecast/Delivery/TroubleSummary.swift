import Foundation
import Synchronization

/// What the workers say about APNs trouble (429s, 5xx, refused or broken connections,
/// timeouts): the first occurrence of a cause at once, then one line per cause per interval
/// with how many more there were and for which apps — so a storm of 429s is visible at the
/// default log level without one line per send. Pure: time is a parameter.
struct TroubleSummary: Sendable {
    /// One line to log at WARNING.
    struct Line: Sendable, Equatable {
        /// The message.
        var message: String
        /// Its fields (cause, count, apps, interval).
        var fields: [String: String]
    }

    /// How long occurrences are gathered before their summary is logged.
    let interval: TimeInterval
    private var windowStart: Date?
    private var causes: [String: (more: Int, apps: Set<String>)] = [:]

    /// A summary over windows of `interval` seconds (60 by default).
    init(interval: TimeInterval = 60) { self.interval = interval }

    /// Notes one failed attempt with `cause` for `app` at `now`; returns the line to log at once
    /// when the cause is new in this window.
    mutating func record(cause: String, app: String, now: Date) -> Line? {
        if windowStart == nil { windowStart = now }
        if var seen = causes[cause] {
            seen.more += 1
            seen.apps.insert(app)
            causes[cause] = seen
            return nil
        }
        causes[cause] = (0, [app])
        return Line(
            message: "APNs trouble: \(cause); further ones in the next \(Int(interval)) s are counted and summarised",
            fields: ["cause": cause, "app": app])
    }

    /// The summaries of the window once `interval` has passed since it began (one per cause
    /// that occurred more than once), and a fresh window; nothing before.
    mutating func flush(now: Date) -> [Line] {
        guard let start = windowStart, now.timeIntervalSince(start) >= interval else { return [] }
        let lines = causes.sorted { $0.key < $1.key }.compactMap { cause, seen -> Line? in
            guard seen.more > 0 else { return nil }
            return Line(
                message: "APNs trouble in the last \(Int(now.timeIntervalSince(start))) s: \(cause) ×\(seen.more + 1)",
                fields: ["cause": cause, "count": String(seen.more + 1), "apps": seen.apps.sorted().joined(separator: ",")])
        }
        windowStart = nil
        causes = [:]
        return lines
    }
}

/// The pool's ``TroubleSummary``, shared by its workers.
final class TroubleLog: Sendable {
    private let summary = Mutex(TroubleSummary())

    /// Runs `body` on the summary under its lock.
    func withLock<T>(_ body: (inout TroubleSummary) -> T) -> T { summary.withLock { body(&$0) } }
}
