import Clocks
import Dispatch
import Foundation
import Synchronization

/// A logger for the places where one failure repeats (worker loops, poller duties, ingest, a
/// pool reconnecting): lines go through a ``RepeatSummary`` keyed by cause, and each interval's
/// summary is written when it ends, even if the failure stopped.
///
/// ```swift
/// let repeats = RepeatLog(logger: logger)
/// repeats.warning(cause: "claim", "claiming outbox rows failed; retrying", ["error": "\(error)"])
/// ```
public final class RepeatLog: Sendable {
    private let logger: Logger
    private let clock: any ServiceClock
    private let state: Mutex<(summary: RepeatSummary, flushScheduled: Bool)>

    /// Summarises `logger`'s repeated lines over `interval` seconds (60 by default) of `clock`'s time.
    public init(logger: Logger, interval: TimeInterval = 60, clock: any ServiceClock = SystemServiceClock()) {
        self.logger = logger
        self.clock = clock
        self.state = Mutex((RepeatSummary(interval: interval), false))
    }

    /// Writes `message` at `level`, or counts it when `cause` (the message by default) was
    /// already written within the interval; the summary lists every value seen of the fields
    /// named in `gathering`. A cause logged `untilRecovered` is written once until
    /// ``recovered(cause:_:_:)`` says it is over; meanwhile only its summaries are.
    public func log(
        _ level: LogLevel, cause: String? = nil, _ message: String, _ fields: [String: String] = [:], gathering: Set<String> = [],
        untilRecovered: Bool = false
    ) {
        guard logger.isEnabled(level) else { return }
        let line = RepeatSummary.Line(level: level, message: message, fields: fields)
        let (lines, flushAt) = state.withLock { state in
            let lines = state.summary.record(cause: cause ?? message, line, now: clock.now(), gathering: gathering, untilRecovered: untilRecovered)
            return (lines, scheduleIfNeeded(&state))
        }
        write(lines)
        if let flushAt { schedule(at: flushAt) }
    }

    /// `log(.warning, …)`.
    public func warning(
        cause: String? = nil, _ message: String, _ fields: [String: String] = [:], gathering: Set<String> = [], untilRecovered: Bool = false
    ) {
        log(.warning, cause: cause, message, fields, gathering: gathering, untilRecovered: untilRecovered)
    }

    /// Says at `notice` level that `cause` works again, after its last summary, when it was
    /// logged `untilRecovered` and had not recovered yet; otherwise writes nothing of it.
    public func recovered(cause: String, _ message: String, _ fields: [String: String] = [:]) {
        let line = RepeatSummary.Line(level: .notice, message: message, fields: fields)
        let lines = state.withLock { $0.summary.recovered(cause: cause, line, now: clock.now()) }
        write(lines)
    }

    /// `log(.error, …)`.
    public func error(cause: String? = nil, _ message: String, _ fields: [String: String] = [:]) {
        log(.error, cause: cause, message, fields)
    }

    /// Writes the summaries of the intervals that have ended.
    public func flush() {
        let (lines, flushAt) = state.withLock { state in
            state.flushScheduled = false
            let lines = state.summary.flush(now: clock.now())
            return (lines, scheduleIfNeeded(&state))
        }
        write(lines)
        if let flushAt { schedule(at: flushAt) }
    }

    private func scheduleIfNeeded(_ state: inout (summary: RepeatSummary, flushScheduled: Bool)) -> Date? {
        guard !state.flushScheduled, let next = state.summary.nextFlush else { return nil }
        state.flushScheduled = true
        return next
    }

    private func schedule(at date: Date) {
        let delay = max(0.001, date.timeIntervalSince(clock.now()))
        DispatchQueue.global().asyncAfter(deadline: .now() + delay) { [weak self] in self?.flush() }
    }

    private func write(_ lines: [RepeatSummary.Line]) {
        for line in lines { logger.log(line.level, line.message, line.fields) }
    }
}
