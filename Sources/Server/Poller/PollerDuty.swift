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

/// A failure that lasts while its cause does (APNs refusing one app's requests): the poller
/// logs when a cause starts failing, summaries while it keeps failing, and when it works again,
/// rather than a line per game per round.
package struct DutyFailure: Sendable, Equatable {
    /// What fails, e.g. `creating channels in com.example.scores (production)`; also the start
    /// of the recovery line.
    package var cause: String
    /// The line written when the cause starts failing.
    package var message: String
    /// Its fields; `game` is gathered into the summary as every game affected.
    package var fields: [String: String]

    /// A failure of `cause`.
    package init(cause: String, message: String, fields: [String: String] = [:]) {
        self.cause = cause
        self.message = message
        self.fields = fields
    }
}

/// What one round of a duty did: counters by name (rows rescued, minutes rolled up…),
/// warnings for an operator, and failures with a cause that may last. Logged by the poller;
/// returned to tests.
package struct DutyReport: Sendable, Equatable, CustomStringConvertible {
    /// Counters, e.g. `["rescued": 3]`.
    package var counts: [String: Int]
    /// Lines an operator should see (logged as warnings).
    package var warnings: [String]
    /// Failures this round, summarised by cause across rounds.
    package var failures: [DutyFailure] = []
    /// Causes that worked this round without failing: any outage of theirs is over.
    package var recovered: Set<String> = []

    /// Creates a report.
    package init(counts: [String: Int] = [:], warnings: [String] = []) {
        self.counts = counts
        self.warnings = warnings
    }

    /// The counter `name`, 0 when absent.
    package subscript(name: String) -> Int { counts[name] ?? 0 }

    /// Whether nothing was counted or warned about.
    package var isQuiet: Bool { counts.values.allSatisfy { $0 == 0 } && warnings.isEmpty && failures.isEmpty }

    /// `name=value` pairs in name order.
    package var description: String {
        counts.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
    }

    /// The counters as log fields.
    var logFields: [String: String] { counts.mapValues(String.init) }
}
