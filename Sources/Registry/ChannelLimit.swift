/// The per-app-and-environment channel limit (apns.md §2: 10,000; `SCORECAST_CHANNEL_LIMIT`):
/// whether one more channel may be created, and whether to warn. Pure.
package struct ChannelLimit: Sendable, Hashable {
    /// What creating one more channel means.
    package enum Verdict: Sendable, Hashable {
        /// Well below the limit.
        case allowed
        /// Allowed, but the app will then use at least `warningFraction` of its limit.
        case warning(afterCreate: Int, limit: Int)
        /// At the limit: APNs would refuse (`CannotCreateChannelConfig`), so we do not ask.
        case refused(count: Int, limit: Int)
    }

    /// The most channels an app may have in one environment.
    package let limit: Int
    /// From this share of the limit on, creating warns (80 %: time to act before new games
    /// go without channels).
    package static let warningFraction = 0.8

    /// Creates the rule for `limit` channels.
    package init(limit: Int) { self.limit = limit }

    /// The first channel count that warns: 80 % of the limit, rounded up.
    package var warningThreshold: Int {
        Int((Double(limit) * Self.warningFraction).rounded(.up))
    }

    /// The verdict for creating one channel when the app has `count` (live ones and recorded
    /// orphans: everything that still counts at APNs).
    package func verdict(forCreatingWith count: Int) -> Verdict {
        if count >= limit { return .refused(count: count, limit: limit) }
        if count + 1 >= warningThreshold { return .warning(afterCreate: count + 1, limit: limit) }
        return .allowed
    }

    /// Usage as text: `9,001 of 10,000 (90%)`.
    package static func usage(_ count: Int, of limit: Int) -> String {
        let percent = limit > 0 ? Int((Double(count) * 100 / Double(limit)).rounded(.down)) : 100
        return "\(count) of \(limit) (\(percent)%)"
    }
}
