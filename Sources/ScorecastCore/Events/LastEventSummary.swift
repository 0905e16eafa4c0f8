import Foundation
import ScorecastActivity

/// The last notable play, as shown on the Live Activity.
public struct LastEventSummary: Sendable, Hashable {
    /// The feed's event id.
    public var id: String
    /// What happened.
    public var kind: EventKind
    /// When it happened.
    public var occurredAt: Date
    /// The feed's description of the play.
    public var description: String?
    /// The team concerned.
    public var team: TeamSide?
    /// The player concerned, by short name when the feed gave one.
    public var player: String?
    /// The match minute, for sports that count minutes.
    public var minute: Int?
    /// Minutes into added time.
    public var addedMinute: Int?
    /// A card's colour.
    public var card: CardColour?
    /// A goal was an own goal.
    public var ownGoal: Bool?
    /// A goal was a penalty.
    public var penalty: Bool?

    /// Creates a summary.
    public init(
        id: String, kind: EventKind, occurredAt: Date, description: String? = nil, team: TeamSide? = nil, player: String? = nil,
        minute: Int? = nil, addedMinute: Int? = nil, card: CardColour? = nil, ownGoal: Bool? = nil, penalty: Bool? = nil
    ) {
        self.id = id
        self.kind = kind
        self.occurredAt = occurredAt
        self.description = description
        self.team = team
        self.player = player
        self.minute = minute
        self.addedMinute = addedMinute
        self.card = card
        self.ownGoal = ownGoal
        self.penalty = penalty
    }

    /// The summary of `event`, at match minute `minute` (+ `addedMinute`) when known.
    public init(_ event: FeedEvent, minute: Int? = nil, addedMinute: Int? = nil) {
        self.init(
            id: event.id, kind: event.kind, occurredAt: event.occurredAt,
            description: event.description, team: event.team, player: event.shortName ?? event.player,
            minute: minute, addedMinute: addedMinute, card: event.card, ownGoal: event.ownGoal, penalty: event.penalty
        )
    }
}
