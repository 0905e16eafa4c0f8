import Clocks
import Foundation
import Registry

/// What becomes of a live channel whose games have all ended. Pure.
///
/// The channel turns `retiring` as soon as its game is over — it still carries the game's last
/// update (`event: end`), which the workers send to retiring channels too — and is deleted at
/// APNs once `grace` has passed since the game finished, freeing its place under the app's
/// channel limit. Channels of paused apps wait: APNs would refuse the deletion like every other
/// request of theirs.
package enum RetireDecision: Sendable, Hashable {
    /// Nothing to do yet.
    case keep
    /// Mark it `retiring`.
    case markRetiring
    /// Delete it at APNs and mark it `deleted`.
    case delete

    /// The decision for a channel in `status` (`active` or `retiring`) whose bound games all
    /// finished, the last at `finishedAt`.
    package static func decide(status: ChannelRecord.Status, finishedAt: Date, appPaused: Bool, now: Date, grace: Duration) -> RetireDecision {
        if !appPaused && now >= finishedAt.adding(grace) { return .delete }
        return status == .active ? .markRetiring : .keep
    }
}

/// Warns when an app nears its channel limit (80 %, like `ChannelLimit`), at most once an hour
/// per app unless its count grew by another 1 % of the limit. Pure state, fed by the retire duty.
package struct ChannelLimitWatch: Sendable {
    /// The limit per app and environment.
    package let limit: ChannelLimit
    private var lastWarning: [Int64: (at: Date, count: Int)] = [:]

    /// Creates a watch for `limit` channels.
    package init(limit: Int) { self.limit = ChannelLimit(limit: limit) }

    /// The warnings due at `now` for apps using `counts[appID]` channels (`names[appID]` in the text).
    package mutating func warnings(counts: [Int64: Int], names: [Int64: String], now: Date) -> [String] {
        var warnings: [String] = []
        let step = max(1, limit.limit / 100)
        for (appID, count) in counts.sorted(by: { $0.key < $1.key }) {
            guard count >= limit.warningThreshold else {
                lastWarning[appID] = nil
                continue
            }
            if let last = lastWarning[appID], now.timeIntervalSince(last.at) < 3600, count < last.count + step { continue }
            lastWarning[appID] = (now, count)
            let name = names[appID] ?? "app \(appID)"
            warnings.append(count >= limit.limit
                ? "\(name) has reached its channel limit: \(ChannelLimit.usage(count, of: limit.limit)); new games get no channel until channels are deleted"
                : "\(name) is near its channel limit: \(ChannelLimit.usage(count, of: limit.limit))")
        }
        return warnings
    }
}
