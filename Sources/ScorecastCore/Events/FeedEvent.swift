import Foundation

/// One validated event from a sports feed (see `Schema/event.schema.json`).
///
/// Only ``FeedEventValidator`` makes these from untrusted input; every field is within
/// ``FeedEventLimits``.
public struct FeedEvent: Sendable, Hashable {
    /// The feed's own event id: the idempotency key (1–128 visible ASCII characters).
    public var id: String
    /// The feed's game id (1–128 of `A-Z a-z 0-9 . _ : -`).
    public var game: String
    /// Per-game sequence number, 1 … 2^53; a higher one is newer.
    public var seq: Int
    /// When it happened (RFC 3339 with a zone on the wire).
    public var occurredAt: Date
    /// What happened.
    public var kind: EventKind
    /// The scoreboard after the event, full or partial.
    public var scoreboard: ScoreboardUpdate
    /// A short human description of the play (≤ 280 characters).
    public var description: String?
    /// The team concerned, if any.
    public var team: TeamSide?
    /// The player concerned, if any (≤ 64 characters).
    public var player: String?
    /// Forces the event to alert (`true`) or to stay routine (`false`) regardless of its kind's
    /// default — how a feed marks a red card apart from a yellow one.
    public var alert: Bool?
    /// The player's short name for tight layouts ("Messi"), shown instead of ``player`` (≤ 32).
    public var shortName: String?
    /// For a `score`: the goal is an own goal (``team`` is the team credited, ``player`` plays
    /// for the other side).
    public var ownGoal: Bool?
    /// For a `score`: scored from the penalty spot.
    public var penalty: Bool?
    /// For a `card`: its colour.
    public var card: CardColour?
    /// For a `var` (video review): the id of an earlier goal it disallows. The goal's scorer
    /// leaves the list, and its team's score goes down by one unless the event's scoreboard
    /// gives the corrected score.
    public var disallows: String?
    /// The teams' codes and colours as the feed gives them, by side (often on the first event
    /// only). They fill what the game's registration lacks; a later event's part replaces an
    /// earlier one's.
    public var teams: [TeamSide: TeamIdentity]

    /// Creates an event; callers outside tests should go through ``FeedEventValidator``.
    public init(
        id: String,
        game: String,
        seq: Int,
        occurredAt: Date,
        kind: EventKind,
        scoreboard: ScoreboardUpdate = ScoreboardUpdate(),
        description: String? = nil,
        team: TeamSide? = nil,
        player: String? = nil,
        alert: Bool? = nil,
        shortName: String? = nil,
        ownGoal: Bool? = nil,
        penalty: Bool? = nil,
        card: CardColour? = nil,
        disallows: String? = nil,
        teams: [TeamSide: TeamIdentity] = [:]
    ) {
        self.id = id
        self.game = game
        self.seq = seq
        self.occurredAt = occurredAt
        self.kind = kind
        self.scoreboard = scoreboard
        self.description = description
        self.team = team
        self.player = player
        self.alert = alert
        self.shortName = shortName
        self.ownGoal = ownGoal
        self.penalty = penalty
        self.card = card
        self.disallows = disallows
        self.teams = teams
    }
}
