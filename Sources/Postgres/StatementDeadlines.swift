import Dispatch
import Synchronization

/// The client-side deadlines of one connection's statements, on at most one pending timer.
///
/// Each statement used to arm a dispatch timer of its own (31 s by default) that nothing
/// cancelled: it fired long after the statement had answered, waking libdispatch's timer
/// thread and a pool thread to find nothing to do, and under load thousands were pending at
/// once. Here a deadline is an entry, removed when its statement answers; the timer is set
/// for the earliest entry only when none is set sooner, and when it fires it expires what is
/// due and sets itself for the next entry, if any. A statement costs a lock, not a timer.
final class StatementDeadlines: Sendable {
    private struct Entry {
        var deadline: DispatchTime
        var expire: @Sendable () -> Void
    }

    private struct State {
        var entries: [UInt64: Entry] = [:]
        var nextID: UInt64 = 0
        /// When the pending timer fires, if one is pending.
        var firesAt: DispatchTime?
        /// Timers set so far (for tests: statements must not each set one).
        var timersSet = 0
    }

    private let state = Mutex(State())

    /// Calls `expire` after `limit` unless ``disarm(_:)`` is called first; returns the id to
    /// disarm it with.
    func arm(after limit: Duration, expire: @escaping @Sendable () -> Void) -> UInt64 {
        let deadline = DispatchTime.now() + .nanoseconds(Int(clamping: Self.nanoseconds(limit)))
        let (id, setTimer) = state.withLock { state in
            state.nextID += 1
            state.entries[state.nextID] = Entry(deadline: deadline, expire: expire)
            return (state.nextID, Self.claimTimer(for: deadline, in: &state))
        }
        if setTimer { schedule(at: deadline) }
        return id
    }

    /// Forgets deadline `id` (its statement answered).
    func disarm(_ id: UInt64) {
        _ = state.withLock { $0.entries.removeValue(forKey: id) }
    }

    /// Deadlines not yet disarmed nor expired.
    var pending: Int { state.withLock { $0.entries.count } }

    /// Timers set since creation.
    var timersSet: Int { state.withLock { $0.timersSet } }

    private func fire() {
        let now = DispatchTime.now()
        let (due, next) = state.withLock { state -> ([Entry], DispatchTime?) in
            let due = state.entries.filter { $0.value.deadline <= now }
            for id in due.keys { state.entries.removeValue(forKey: id) }
            // The pending timer is this one when its time has come; a later one still pending
            // covers the entries due after it.
            if let firesAt = state.firesAt, firesAt <= now { state.firesAt = nil }
            guard let earliest = state.entries.values.map(\.deadline).min() else { return (Array(due.values), nil) }
            return (Array(due.values), Self.claimTimer(for: earliest, in: &state) ? earliest : nil)
        }
        for entry in due.sorted(by: { $0.deadline < $1.deadline }) { entry.expire() }
        if let next { schedule(at: next) }
    }

    /// Whether a timer must be set for `deadline`: none is pending, or the pending one fires later.
    private static func claimTimer(for deadline: DispatchTime, in state: inout State) -> Bool {
        if let firesAt = state.firesAt, firesAt <= deadline { return false }
        state.firesAt = deadline
        state.timersSet += 1
        return true
    }

    private func schedule(at deadline: DispatchTime) {
        DispatchQueue.global().asyncAfter(deadline: deadline) { [weak self] in self?.fire() }
    }

    private static func nanoseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        let (whole, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        if overflow { return seconds < 0 ? 1_000_000 : .max }
        return max(1_000_000, whole + attoseconds / 1_000_000_000)
    }
}
