import Synchronization

/// Why a worker is about to claim: what it expects to find.
enum ClaimReason: Equatable {
    /// A NOTIFY announced rows (they were committed before the notification was signalled).
    case news
    /// A row falls due about now (an idle worker's timer), or the look failed.
    case dueTime
    /// The worker's last claim came back full: more may be waiting.
    case more
}

/// A claim of this process, as the next claimant judges it.
struct ClaimRecord: Equatable {
    /// The wake generation when the claim began.
    var generation: UInt64
    /// When it began, in the order of ``ClaimTurns``' own counter.
    var began: UInt64
    /// Whether it took every due row it could see: it came back short of its limit, was not a
    /// probe, and did not fail.
    var tookAll: Bool
}

/// One claim at a time per process, and none that a claim just made has already answered.
///
/// A NOTIFY wakes every idle worker, and each used to claim: with two workers most claims came
/// back empty (35–70 % in profiles), each costing Postgres a scan. Now a worker
/// claims only after the claim in flight ends, and not at all if that claim covers what it
/// woke for (``covers(_:reason:seen:decided:)``). The worker's rows are never missed: a
/// skipped worker goes back to its idle wait, whose look at the due times and next NOTIFY
/// still stand.
final class ClaimTurns: Sendable {
    private struct State {
        /// The turn in flight (its ``ClaimRecord/began``), if any.
        var claiming: UInt64?
        var last: ClaimRecord?
        /// Counts decisions and claim starts, so "began after it decided" is an ordering, not a time.
        var clock: UInt64 = 0
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())

    /// Whether `last` makes a claim for `reason` pointless: it took every row it could see, and
    /// it saw what the claimant wants. Rows announced by the wake generation `seen` were
    /// committed before that signal, so a claim that began at generation `seen` or later saw
    /// them; a row falling due at the claimant's decision (`decided`) was seen by a claim that
    /// began after it. After a full claim, nothing is covered. Pure.
    static func covers(_ last: ClaimRecord?, reason: ClaimReason, seen: UInt64, decided: UInt64) -> Bool {
        guard let last, last.tookAll else { return false }
        switch reason {
        case .news: return last.generation >= seen
        case .dueTime: return last.generation >= seen && last.began > decided
        case .more: return false
        }
    }

    /// Waits until no claim of this process is in flight; returns the turn to claim (call
    /// ``finish(_:tookAll:)`` after the claim), or `nil` when a claim that began meanwhile
    /// covers `reason` and there is nothing to claim. `seen` is the wake generation the worker
    /// saw when it decided.
    func take(reason: ClaimReason, seen: UInt64, generation: @Sendable () -> UInt64) async -> ClaimRecord? {
        let decided = state.withLock { state in
            state.clock += 1
            return state.clock
        }
        while true {
            let outcome: ClaimRecord?? = state.withLock { state in
                if state.claiming != nil { return .none }
                if Self.covers(state.last, reason: reason, seen: seen, decided: decided) { return .some(nil) }
                state.clock += 1
                state.claiming = state.clock
                return .some(ClaimRecord(generation: generation(), began: state.clock, tookAll: false))
            }
            if let outcome { return outcome }
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow = state.withLock { state in
                    if state.claiming == nil { return true }
                    state.waiters.append(continuation)
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        }
    }

    /// Ends the turn `turn`: the claim took every row it could see (`tookAll`) or not. Only the
    /// first call for a turn counts (a second one changes nothing).
    func finish(_ turn: ClaimRecord, tookAll: Bool) {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            guard state.claiming == turn.began else { return [] }
            var record = turn
            record.tookAll = tookAll
            state.last = record
            state.claiming = nil
            defer { state.waiters.removeAll() }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }
}
