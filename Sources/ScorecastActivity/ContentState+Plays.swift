import Foundation

extension ContentState {
    /// A notable play, as ``ContentState/lastEvent``.
    public struct Play: Codable, Hashable, Sendable {
        /// What happened.
        public var kind: Kind
        /// The feed's description of the play.
        public var text: String?
        /// The team concerned (for an own goal: the team credited with the goal).
        public var team: Side?
        /// The player concerned, by short name ("Messi").
        public var player: String?
        /// The match minute it happened in ("67'" is 67; "45+2'" is 45 with ``addedMinute`` 2),
        /// for sports that count minutes.
        public var minute: Int?
        /// Minutes into added time, when it happened in added time.
        public var addedMinute: Int?
        /// The card's colour, for a card.
        public var card: CardColour?
        /// Whether a goal was an own goal (`player` then plays for the other team).
        public var ownGoal: Bool?
        /// Whether a goal was scored from the penalty spot.
        public var penalty: Bool?
        /// When it happened.
        public var occurredAt: Date

        /// Creates a play.
        public init(
            kind: Kind, text: String? = nil, team: Side? = nil, player: String? = nil, minute: Int? = nil,
            addedMinute: Int? = nil, card: CardColour? = nil, ownGoal: Bool? = nil, penalty: Bool? = nil,
            occurredAt: Date
        ) {
            self.kind = kind
            self.text = text
            self.team = team
            self.player = player
            self.minute = minute
            self.addedMinute = addedMinute
            self.card = card
            self.ownGoal = ownGoal
            self.penalty = penalty
            self.occurredAt = occurredAt
        }

        /// What kind of play (the feed's event kinds).
        public enum Kind: String, Codable, Hashable, Sendable, CaseIterable, CustomStringConvertible {
            /// Fixture created or moved.
            case scheduled
            /// The game began.
            case start
            /// A goal, basket, run, try…
            case score
            /// A period or break began.
            case period
            /// The clock was set or corrected.
            case clock
            /// A card was shown.
            case card
            /// A substitution.
            case substitution
            /// Video review.
            case videoReview = "var"
            /// A penalty was awarded.
            case penalty
            /// A timeout.
            case timeout
            /// Statistics changed.
            case stats
            /// Play was suspended.
            case suspended
            /// Play resumed.
            case resumed
            /// The game is over.
            case final
            /// The game was called off.
            case cancelled

            /// The wire name, as in logs and error messages.
            public var description: String { rawValue }
        }
    }

    /// A card's colour.
    public enum CardColour: String, Codable, Hashable, Sendable, CaseIterable {
        /// A caution.
        case yellow
        /// A second caution: the player is sent off (counts as a red card).
        case secondYellow = "second-yellow"
        /// A sending-off.
        case red

        /// Whether the player is sent off.
        public var sendsOff: Bool { self != .yellow }
    }

    /// One goal in ``ContentState/scorers``.
    public struct Scorer: Codable, Hashable, Sendable {
        /// The team credited with the goal (for an own goal, the scorer's opponents).
        public var team: Side
        /// The scorer's short name, when known.
        public var player: String?
        /// The match minute (see ``Play/minute``).
        public var minute: Int?
        /// Minutes into added time.
        public var addedMinute: Int?
        /// An own goal.
        public var ownGoal: Bool
        /// Scored from the penalty spot.
        public var penalty: Bool

        /// Creates a scorer entry.
        public init(team: Side, player: String? = nil, minute: Int? = nil, addedMinute: Int? = nil, ownGoal: Bool = false, penalty: Bool = false) {
            self.team = team
            self.player = player
            self.minute = minute
            self.addedMinute = addedMinute
            self.ownGoal = ownGoal
            self.penalty = penalty
        }
    }

    /// One card in ``ContentState/cards``.
    public struct Card: Codable, Hashable, Sendable {
        /// The player's team.
        public var team: Side
        /// The player's short name, when known.
        public var player: String?
        /// The match minute.
        public var minute: Int?
        /// Minutes into added time.
        public var addedMinute: Int?
        /// Yellow, second yellow or red.
        public var colour: CardColour

        /// Creates a card entry.
        public init(team: Side, player: String? = nil, minute: Int? = nil, addedMinute: Int? = nil, colour: CardColour) {
            self.team = team
            self.player = player
            self.minute = minute
            self.addedMinute = addedMinute
            self.colour = colour
        }
    }
}

extension ContentState {
    /// A match minute as fans write it: `67'`, `45+2'`.
    public static func minuteText(_ minute: Int, added: Int?) -> String {
        if let added, added > 0 { return "\(minute)+\(added)'" }
        return "\(minute)'"
    }
}
