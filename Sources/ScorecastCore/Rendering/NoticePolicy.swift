import Foundation

/// Whether an event changed what a fan would notice on the lock screen or in the Dynamic Island,
/// so that it is worth a push: the one place that decides it (``GameState/applying(_:profile:notice:)``
/// asks it; ingest writes no update for an event it turns down, unless the event alerts).
///
/// - A change of the score, status, period, a notable play (``EventKind/isNotable``: goals,
///   cards, substitutions, video reviews, period changes, corrections), the lists, added time,
///   or a clock that disagrees with the running one beyond the sport's tolerance is noticed at
///   once.
/// - A clock tick the phone already shows (it runs the clock itself), or an event that changes
///   nothing shown, is not noticed.
/// - Statistics — the `extra` values a `stats` event changes (possession, shots, corners…) — are
///   noticed at a cadence: once ``statisticsInterval`` has passed since the last update the
///   phone got (every update carries the newest statistics), with the next event. Pushed as they
///   change, a real feed's statistics cost well over one push per channel a minute.
/// - Values in `extra` that another kind of event brings (a goal's assist, a baseball feed's
///   count on a play) belong to that play and are noticed with it.
/// - After the sport's ``SportProfile/refreshInterval`` without a noticed change, the next event
///   is noticed anyway, so the phone's `stale-date` keeps moving during a quiet game.
public struct NoticePolicy: Sendable, Hashable {
    /// Seconds of feed time after the last noticed change before a change of statistics alone
    /// is noticed; 0 notices every change at once.
    public var statisticsInterval: Double

    /// The default of ``statisticsInterval`` (`SCORECAST_STATS_INTERVAL_SECONDS`): the shortest
    /// whole minute that keeps a real-density football match (about 2,800 feed events) under one
    /// routine push per channel a minute, whatever the seed; 30 s does not, and the statistics a
    /// fan reads are about a minute old at most.
    public static let defaultStatisticsInterval: Double = 60

    /// Creates a policy; a negative interval counts as 0.
    public init(statisticsInterval: Double = NoticePolicy.defaultStatisticsInterval) {
        self.statisticsInterval = max(0, statisticsInterval)
    }

    /// Whether `next`, the state after `event` was folded into `previous`, shows the fan
    /// something new enough to push, as `profile`'s sport is shown.
    public func notices(_ next: GameState, after previous: GameState, event: FeedEvent, profile: SportProfile) -> Bool {
        let quietFor = event.occurredAt.timeIntervalSince(previous.shownAt ?? .distantPast)
        if next.shows(differentlyFrom: previous, profile: profile, statistics: false) { return true }
        if event.kind != .stats, next.extra != previous.extra { return true }
        // 0 notices every change, even when the feed's time went back since the last update.
        if next.extra != previous.shownExtra, statisticsInterval == 0 || quietFor >= statisticsInterval { return true }
        return quietFor >= profile.refreshInterval
    }
}
