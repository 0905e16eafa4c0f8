/// Per-channel publishing budgets: priority-10 broadcasts counted over a rolling hour.
/// Priority 5 (and 1) never draw on the budget (apns.md §5). A pure value guarded by the caller.
struct BudgetLedger: Sendable {
    /// The rolling window, in seconds.
    static let window: Double = 3600

    /// What the ledger knows about one channel.
    struct Usage: Sendable, Equatable {
        /// Accepted priority-10 sends, oldest first, within (or just before) the window.
        fileprivate var times: [Double] = []
        fileprivate var head = 0
        /// Accepted sends by priority, since the channel was first seen.
        var priorityTenSends = 0
        var otherSends = 0
        /// Sends refused with `429 TooManyRequests`.
        var throttled = 0

        /// Priority-10 sends still inside the window ending at `now`.
        func used(now: Double) -> Int {
            var count = 0
            for index in head..<times.count where times[index] > now - BudgetLedger.window { count += 1 }
            return count
        }

        /// When the oldest counted send leaves the window (UNIX seconds), if any.
        func oldestExpiry(now: Double) -> Double? {
            for index in head..<times.count where times[index] > now - BudgetLedger.window {
                return times[index] + BudgetLedger.window
            }
            return nil
        }

        fileprivate mutating func prune(now: Double) {
            while head < times.count && times[head] <= now - BudgetLedger.window { head += 1 }
            // Compact once the dead prefix dominates, keeping appends amortised O(1).
            if head > 64 && head * 2 > times.count {
                times.removeFirst(head)
                head = 0
            }
        }
    }

    /// The answer to a send.
    enum Admission: Equatable {
        /// Counted (if priority 10) and allowed.
        case allowed
        /// Over budget: refuse with 429; `freesAt` is when the oldest counted send leaves the window.
        case throttled(freesAt: Double)
    }

    private(set) var usage: [String: Usage] = [:]

    /// Decides and records a send of `priority` on `channelID` under `budget` (`nil`: unlimited).
    mutating func admit(channelID: String, priority: Int, budget: Int?, now: Double) -> Admission {
        var entry = usage.removeValue(forKey: channelID) ?? Usage()
        defer { usage[channelID] = entry }
        guard priority == 10 else {
            entry.otherSends += 1
            return .allowed
        }
        entry.prune(now: now)
        if let budget, entry.times.count - entry.head >= budget {
            entry.throttled += 1
            let freesAt = entry.head < entry.times.count ? entry.times[entry.head] + Self.window : now
            return .throttled(freesAt: freesAt)
        }
        entry.times.append(now)
        entry.priorityTenSends += 1
        return .allowed
    }

    /// Forgets a channel's counters (on delete).
    mutating func forget(channelID: String) { usage[channelID] = nil }

    /// Forgets every counter.
    mutating func removeAll() { usage.removeAll() }
}
