import Foundation
import JSON

/// A game's current state, folded from its events in `seq` order.
///
/// Pure: ``applying(_:)`` returns the next state, or ``GameStateChange/stale(appliedSeq:)`` for an
/// event that is not newer than the last applied one — such an event is stored by ingest but
/// changes nothing and sends nothing.
public struct GameState: Sendable, Hashable {
    /// Where the game is in its life.
    public var status: GameStatus
    /// The home team's score.
    public var homeScore: Int
    /// The away team's score.
    public var awayScore: Int
    /// The current period label, if known.
    public var period: String?
    /// The current clock label, if known.
    public var clock: String?
    /// Sport-specific scalar values (strings, numbers, booleans), merged from every event.
    public var extra: [String: JSONValue]
    /// The last applied event.
    public var lastEvent: LastEventSummary?
    /// The highest applied `seq`; 0 before any event.
    public var appliedSeq: Int

    /// A game before any event: scheduled, 0–0.
    public static let initial = GameState(status: .scheduled, homeScore: 0, awayScore: 0)

    /// Creates a state.
    public init(
        status: GameStatus,
        homeScore: Int,
        awayScore: Int,
        period: String? = nil,
        clock: String? = nil,
        extra: [String: JSONValue] = [:],
        lastEvent: LastEventSummary? = nil,
        appliedSeq: Int = 0
    ) {
        self.status = status
        self.homeScore = homeScore
        self.awayScore = awayScore
        self.period = period
        self.clock = clock
        self.extra = extra
        self.lastEvent = lastEvent
        self.appliedSeq = appliedSeq
    }

    /// When the last applied event happened.
    public var updatedAt: Date? { lastEvent?.occurredAt }

    /// Folds `event` into the state.
    ///
    /// - Scoreboard fields present in the event replace the current ones; absent ones are kept;
    ///   `null` period, clock or extra values clear them.
    /// - The status follows the table on ``EventKind``.
    /// - An event whose `seq` is not greater than ``appliedSeq`` is stale.
    public func applying(_ event: FeedEvent) -> GameStateChange {
        guard event.seq > appliedSeq else { return .stale(appliedSeq: appliedSeq) }
        var next = self
        let board = event.scoreboard
        if let home = board.home { next.homeScore = home }
        if let away = board.away { next.awayScore = away }
        next.period = board.period.applied(to: period)
        next.clock = board.clock.applied(to: clock)
        for (key, value) in board.extra {
            if value.isNull {
                next.extra[key] = nil
            } else {
                next.extra[key] = value
            }
        }
        next.status = GameState.status(after: event.kind, from: status)
        next.lastEvent = LastEventSummary(event)
        next.appliedSeq = event.seq
        return .applied(next)
    }

    /// The status transition of ``EventKind``'s table.
    static func status(after kind: EventKind, from status: GameStatus) -> GameStatus {
        switch kind {
        case .scheduled:
            return status
        case .start, .resumed:
            return .live
        case .suspended:
            return .suspended
        case .final:
            return .final
        case .cancelled:
            return .cancelled
        case .score, .period, .clock, .card, .substitution, .videoReview, .penalty, .timeout, .stats:
            return status == .scheduled ? .live : status
        }
    }
}

/// The result of folding one event into a ``GameState``.
public enum GameStateChange: Sendable, Hashable {
    /// The event was newer: this is the new state.
    case applied(GameState)
    /// The event's `seq` was not newer than `appliedSeq`: nothing changes.
    case stale(appliedSeq: Int)

    /// The new state, or `nil` when stale.
    public var state: GameState? {
        if case .applied(let state) = self { return state }
        return nil
    }
}
