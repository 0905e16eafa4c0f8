/// Per-channel publishing budgets: priority-10 broadcasts counted over a rolling hour.
/// Priority 5 (and 1) never draw on the budget (apns.md §5). A pure value guarded by the caller.
///
/// Memory per channel stays bounded however many sends arrive: exact send times are kept only
/// for the last `max(budget, keptTimesFloor)` sends (all a decision needs, and enough history to
/// apply a lower budget set at run time), and the hour's total is also counted in per-minute
/// buckets, which is what is reported once more sends happened than times are kept.
struct BudgetLedger: Sendable, Codable {
    /// The rolling window, in seconds.
    static let window: Double = 3600
    /// Send times kept per channel even under a smaller (or no) budget.
    static let keptTimesFloor = 1000

    /// What the ledger knows about one channel.
    struct Usage: Sendable, Equatable, Codable {
        /// Accepted priority-10 send times, ascending: at least the latest `keptLimit`, trimmed
        /// back to that many once twice as many pile up (amortised O(1) per send).
        fileprivate var times: [Double] = []
        fileprivate var keptLimit = BudgetLedger.keptTimesFloor
        /// Whether times were ever trimmed (so the kept ones may not be all of the window).
        fileprivate var trimmed = false
        /// Accepted priority-10 sends per minute of the last hour: (minute number, count), by minute % 60.
        fileprivate var minutes: [MinuteCount] = []
        /// Accepted sends by priority, since the channel was first seen.
        var priorityTenSends = 0
        var otherSends = 0
        /// Sends refused with `429 TooManyRequests`.
        var throttled = 0

        /// Priority-10 sends inside the window ending at `now`: exact while every such send is
        /// among the kept times, else counted to the minute.
        func used(now: Double) -> Int {
            let start = firstInWindow(now: now)
            let exact = times.count - start
            if start > 0 || !trimmed { return exact }
            let current = Self.minute(now)
            return max(exact, minutes.reduce(0) { $0 + ($1.minute > current - 60 ? $1.count : 0) })
        }

        /// When the oldest kept send inside the window leaves it (UNIX seconds), if any.
        func oldestExpiry(now: Double) -> Double? {
            let start = firstInWindow(now: now)
            return start < times.count ? times[start] + BudgetLedger.window : nil
        }

        /// The index of the first kept time inside the window ending at `now` (binary search).
        fileprivate func firstInWindow(now: Double) -> Int {
            let cutoff = now - BudgetLedger.window
            var low = 0
            var high = times.count
            while low < high {
                let middle = (low + high) / 2
                if times[middle] > cutoff { high = middle } else { low = middle + 1 }
            }
            return low
        }

        fileprivate mutating func record(now: Double, keep: Int) {
            let minute = Self.minute(now)
            if minutes.isEmpty { minutes = Array(repeating: MinuteCount(minute: Int.min, count: 0), count: 60) }
            let slot = ((minute % 60) + 60) % 60
            if minutes[slot].minute == minute {
                minutes[slot].count += 1
            } else {
                minutes[slot] = MinuteCount(minute: minute, count: 1)
            }
            keptLimit = keep
            times.append(now)
            if times.count > 2 * keep {
                times.removeFirst(times.count - keep)
                trimmed = true
            }
        }

        private static func minute(_ time: Double) -> Int { Int((time / 60).rounded(.down)) }

        fileprivate mutating func admit(priority: Int, budget: Int?, now: Double) -> Admission {
            guard priority == 10 else {
                otherSends += 1
                return .allowed
            }
            if let budget, times.count - firstInWindow(now: now) >= budget {
                throttled += 1
                // The window has room again once all but `budget - 1` of its sends have left it.
                let freesAt = budget > 0 ? times[times.count - budget] + BudgetLedger.window : now + BudgetLedger.window
                return .throttled(freesAt: freesAt)
            }
            record(now: now, keep: max(budget ?? 0, BudgetLedger.keptTimesFloor))
            priorityTenSends += 1
            return .allowed
        }
    }

    /// One minute's count.
    struct MinuteCount: Sendable, Equatable, Codable {
        var minute: Int
        var count: Int
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
        // Updated in place (one hash lookup, no copy of the kept times).
        usage[channelID, default: Usage()].admit(priority: priority, budget: budget, now: now)
    }

    /// Forgets a channel's counters (on delete).
    mutating func forget(channelID: String) { usage[channelID] = nil }

    /// Forgets every counter.
    mutating func removeAll() { usage.removeAll() }
}
