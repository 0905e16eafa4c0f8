import Foundation

/// One job the poller's leader does on a schedule (roll budgets, rescue leases, roll up
/// statistics…). Each duty keeps its decisions in a pure part and its I/O here; `run(at:)`
/// takes the time from the poller's clock so tests drive it with a manual one.
package protocol PollerDuty: Sendable {
    /// A short name for logs and reports, e.g. `rescue`.
    var name: String { get }
    /// How often it runs.
    var interval: Duration { get }
    /// Does one round at `now` and says what it did. Throwing is fine: the poller logs the error
    /// and tries again at the next interval.
    func run(at now: Date) async throws -> DutyReport
}

/// What one round of a duty did: counters by name (rows rescued, minutes rolled up…) and
/// warnings for an operator. Logged by the poller; returned to tests.
package struct DutyReport: Sendable, Equatable, CustomStringConvertible {
    /// Counters, e.g. `["rescued": 3]`.
    package var counts: [String: Int]
    /// Lines an operator should see (logged as warnings).
    package var warnings: [String]

    /// Creates a report.
    package init(counts: [String: Int] = [:], warnings: [String] = []) {
        self.counts = counts
        self.warnings = warnings
    }

    /// The counter `name`, 0 when absent.
    package subscript(name: String) -> Int { counts[name] ?? 0 }

    /// Whether nothing was counted or warned about.
    package var isQuiet: Bool { counts.values.allSatisfy { $0 == 0 } && warnings.isEmpty }

    /// `name=value` pairs in name order.
    package var description: String {
        counts.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
    }

    /// The counters as log fields.
    var logFields: [String: String] { counts.mapValues(String.init) }
}
