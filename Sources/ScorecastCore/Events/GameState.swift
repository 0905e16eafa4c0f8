import Foundation
import JSON
import ScorecastActivity

/// A game's current state, folded from its events in `seq` order.
///
/// Pure: ``applying(_:profile:)`` returns the next state, or ``GameStateChange/stale(appliedSeq:)``
/// for an event that is not newer than the last applied one — such an event is stored by ingest
/// but changes nothing and sends nothing.
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
    /// The clock's anchor (reading, instant, running), when the feed gave a reading.
    public var clockAnchor: ClockAnchor?
    /// Announced added time in minutes, in the current period.
    public var addedMinutes: Int?
    /// Sport-specific scalar values (strings, numbers, booleans), merged from every event.
    public var extra: [String: JSONValue]
    /// The last notable play (``EventKind/isNotable``): a clock tick or a stats update keeps it.
    public var lastEvent: LastEventSummary?
    /// Goals so far, oldest first (at most ``listLimit``, the newest kept).
    public var scorers: [ContentState.Scorer]
    /// The feed's event id of each of ``scorers``, in step with it: how a `var` event's
    /// `disallows` finds the goal it takes back.
    public var scorerIDs: [String]
    /// The id of the event that last corrected the score (a goal disallowed, or a score that
    /// went down): such an event is never announced as a goal.
    public var correction: String?
    /// Cards so far, oldest first (at most ``listLimit``, the newest kept).
    public var cards: [ContentState.Card]
    /// Red cards (a second yellow counts) per team, over the whole game.
    public var redCards: ContentState.TeamTally
    /// The shoot-out score, once one began.
    public var shootout: ContentState.TeamTally?
    /// When the last applied event happened.
    public var updatedAt: Date?
    /// When the state last changed in a way the Live Activity shows (or was last refreshed):
    /// a routine event that leaves it unchanged needs no push.
    public var shownAt: Date?
    /// The `seq` of the event that last moved ``shownAt``: an event whose fold leaves it
    /// unchanged needs no push (events may share a time, so the time alone cannot tell).
    public var shownSeq: Int
    /// ``extra`` as of the event that last moved ``shownAt``: the statistics the phone shows,
    /// which ``NoticePolicy`` compares the newest ones with.
    public var shownExtra: [String: JSONValue]
    /// The highest applied `seq`; 0 before any event.
    public var appliedSeq: Int
    /// The teams' codes and colours as the feed gave them (``FeedEvent/teams``), each part the
    /// newest applied event's; the game's registration wins over them (``TeamIdentity/filled(from:)``).
    public var teams: [TeamSide: TeamIdentity]

    /// Most entries kept in ``scorers`` and ``cards``: more than any football match lists. What
    /// would not fit an update's 4 KB the renderer folds into counts (``ContentStateFit``).
    public static let listLimit = 64

    /// A game before any event: scheduled, 0–0.
    public static let initial = GameState(status: .scheduled, homeScore: 0, awayScore: 0)

    /// Creates a state; `updatedAt` defaults to the last event's time.
    public init(
        status: GameStatus,
        homeScore: Int,
        awayScore: Int,
        period: String? = nil,
        clock: String? = nil,
        clockAnchor: ClockAnchor? = nil,
        addedMinutes: Int? = nil,
        extra: [String: JSONValue] = [:],
        lastEvent: LastEventSummary? = nil,
        scorers: [ContentState.Scorer] = [],
        scorerIDs: [String] = [],
        correction: String? = nil,
        cards: [ContentState.Card] = [],
        redCards: ContentState.TeamTally = ContentState.TeamTally(home: 0, away: 0),
        shootout: ContentState.TeamTally? = nil,
        updatedAt: Date? = nil,
        shownAt: Date? = nil,
        shownSeq: Int? = nil,
        shownExtra: [String: JSONValue]? = nil,
        appliedSeq: Int = 0,
        teams: [TeamSide: TeamIdentity] = [:]
    ) {
        self.status = status
        self.homeScore = homeScore
        self.awayScore = awayScore
        self.period = period
        self.clock = clock
        self.clockAnchor = clockAnchor
        self.addedMinutes = addedMinutes
        self.extra = extra
        self.lastEvent = lastEvent
        self.scorers = scorers
        self.scorerIDs = scorerIDs
        self.correction = correction
        self.cards = cards
        self.redCards = redCards
        self.shootout = shootout
        self.updatedAt = updatedAt ?? lastEvent?.occurredAt
        self.shownAt = shownAt ?? self.updatedAt
        self.shownSeq = shownSeq ?? appliedSeq
        self.shownExtra = shownExtra ?? extra
        self.appliedSeq = appliedSeq
        self.teams = teams
    }

    /// Folds `event` into the state, as `profile`'s sport plays.
    ///
    /// - Scoreboard fields present in the event replace the current ones; absent ones are kept;
    ///   `null` period, clock, added time, shoot-out or extra values clear them. A new period
    ///   clears added time.
    /// - A period that begins sets the clock to the sport's reading for it
    ///   (``SportProfile/clockAtStart(of:)``) unless the feed gives one far from it.
    /// - The clock is re-anchored only when a reading disagrees with the running clock
    ///   (``ClockAnchor/next(after:reported:running:time:direction:tolerance:)``); it runs when
    ///   the feed says so, or (football) whenever the game is live outside a break.
    /// - A `score` that lowers the total is a correction (``correction``), never a goal; a `var`
    ///   that `disallows` a goal removes its scorer and, without a corrected score, the goal.
    /// - A notable play becomes ``lastEvent``; a goal joins ``scorers`` (not in a shoot-out),
    ///   a card with a colour joins ``cards`` and counts toward ``redCards``.
    /// - The status follows the table on ``EventKind``.
    /// - ``shownAt`` (with ``shownSeq`` and ``shownExtra``) moves to the event's time when a fan
    ///   would notice the change, as `notice` decides: at once for plays, at its cadence for
    ///   statistics, after the sport's ``SportProfile/refreshInterval`` for nothing at all.
    /// - The feed's team codes and colours replace the ones it gave before, part by part.
    /// - An event whose `seq` is not greater than ``appliedSeq`` is stale.
    public func applying(_ event: FeedEvent, profile: SportProfile = .generic, notice: NoticePolicy = NoticePolicy()) -> GameStateChange {
        guard event.seq > appliedSeq else { return .stale(appliedSeq: appliedSeq) }
        var next = self
        let board = event.scoreboard
        if let home = board.home { next.homeScore = home }
        if let away = board.away { next.awayScore = away }
        next.period = board.period.applied(to: period)
        next.clock = board.clock.applied(to: clock)
        next.addedMinutes = next.period == period ? board.addedTime.applied(to: addedMinutes) : board.addedTime.applied(to: nil)
        next.shootout = board.shootout.applied(to: shootout)
        for (key, value) in board.extra {
            // Not a ternary: JSONValue is ExpressibleByNilLiteral, so `nil` there would store .null.
            if value.isNull {
                next.extra[key] = nil
            } else {
                next.extra[key] = value
            }
        }
        next.status = GameState.status(after: event.kind, from: status)
        next.clockAnchor = nextClock(after: event, next: next, profile: profile)
        next.recordPlay(event, profile: profile, shootoutBefore: shootout, totalBefore: homeScore + awayScore)
        for (side, identity) in event.teams { next.teams[side] = identity.filled(from: teams[side] ?? TeamIdentity()) }
        next.updatedAt = event.occurredAt
        next.appliedSeq = event.seq
        if notice.notices(next, after: self, event: event, profile: profile) {
            next.shownAt = event.occurredAt
            next.shownSeq = event.seq
            next.shownExtra = next.extra
        }
        return .applied(next)
    }

    private func nextClock(after event: FeedEvent, next: GameState, profile: SportProfile) -> ClockAnchor? {
        guard let direction = profile.clockDirection else { return nil }
        var reported = event.scoreboard.clockSeconds
        var label: Double?
        if case .set(let text) = event.scoreboard.clock { label = SportProfile.seconds(fromLabel: text) }
        // A period that begins starts the clock at the sport's reading for it: exact, where a
        // minute label is only good to the minute. A label far from it (a game picked up
        // mid-period) still wins.
        if reported == nil, next.period != period, let start = profile.clockAtStart(of: next.period),
            abs((label ?? start) - start) <= profile.clockTolerance {
            reported = start
        }
        reported = reported ?? label
        let live = next.status == .live && profile.breakLength(of: next.period) == nil
        let running: Bool
        if let said = event.scoreboard.clockRunning {
            running = said && next.status == .live
        } else if profile.clockRunsThroughPlay {
            running = live
        } else {
            running = (clockAnchor?.running ?? false) && live
        }
        return ClockAnchor.next(
            after: clockAnchor, reported: reported, running: running, time: event.occurredAt,
            direction: direction, tolerance: profile.clockTolerance)
    }

    private mutating func recordPlay(
        _ event: FeedEvent, profile: SportProfile, shootoutBefore: ContentState.TeamTally?, totalBefore: Int
    ) {
        guard event.kind.isNotable else { return }
        // A score that goes down (a goal taken back, a wrong score put right, after full time
        // too) is a correction, never a goal: no scorer, no goal alert, the last play stays.
        if event.kind == .score, homeScore + awayScore < totalBefore {
            correction = event.id
            return
        }
        let minute = profile.countsMinutes ? SportProfile.minute(fromLabel: clock) : nil
        lastEvent = LastEventSummary(event, minute: minute?.minute, addedMinute: minute?.added)
        if event.kind == .videoReview, let goal = event.disallows { disallow(goal, by: event) }
        guard let team = event.team.map(ContentState.Side.init) else { return }
        let name = event.shortName ?? event.player
        switch event.kind {
        case .score where shootout == nil && shootoutBefore == nil:
            scorers.append(ContentState.Scorer(
                team: team, player: name, minute: minute?.minute, addedMinute: minute?.added,
                ownGoal: event.ownGoal ?? false, penalty: event.penalty ?? false))
            scorerIDs.append(event.id)
            scorers = Array(scorers.suffix(Self.listLimit))
            scorerIDs = Array(scorerIDs.suffix(Self.listLimit))
        case .card:
            guard let colour = event.card else { return }
            cards.append(ContentState.Card(team: team, player: name, minute: minute?.minute, addedMinute: minute?.added, colour: colour))
            cards = Array(cards.suffix(Self.listLimit))
            if colour.sendsOff { redCards[team] += 1 }
        default:
            break
        }
    }

    /// Takes back the goal with event id `goal`: its scorer leaves the list and, unless `event`
    /// gives the corrected score, its team loses the goal. An unknown id changes nothing.
    private mutating func disallow(_ goal: String, by event: FeedEvent) {
        guard let index = scorerIDs.firstIndex(of: goal), index < scorers.count else { return }
        let team = scorers[index].team
        scorers.remove(at: index)
        scorerIDs.remove(at: index)
        correction = event.id
        if team == .home, event.scoreboard.home == nil { homeScore = max(0, homeScore - 1) }
        if team == .away, event.scoreboard.away == nil { awayScore = max(0, awayScore - 1) }
    }

    /// Whether the Live Activity would show `self` differently from `other`: their
    /// content-states differ in anything but the time of the last event and the clock's text
    /// (the phone runs the clock from its anchor) — nor in `extra` when `statistics` is false.
    public func shows(differentlyFrom other: GameState, profile: SportProfile, statistics: Bool = true) -> Bool {
        func shown(_ state: GameState) -> ContentState {
            var content = ContentStateRenderer.contentState(of: state, profile: profile, fallbackTime: .distantPast)
            content.updatedAt = .distantPast
            content.clock?.label = nil
            if !statistics { content.extra = [:] }
            return content
        }
        return shown(self) != shown(other)
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
