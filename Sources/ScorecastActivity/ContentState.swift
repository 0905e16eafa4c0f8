import Foundation

/// The live state of one game, sent by scorecast as `content-state` in every Live Activity
/// update, and decoded by ActivityKit on the phone with a default Foundation JSON decoder.
///
/// The server renders through this very type, so the app and the server cannot disagree on a key
/// or a type. Dates are `Date`s written as seconds since 2001-01-01 (the default decoder's
/// strategy); an app whose scorecast setting is another date encoding decodes with the matching
/// `dateDecodingStrategy` instead (`.secondsSince1970`, `.iso8601`).
///
/// **Versioning.** ``version`` is ``currentVersion`` in everything the server sends. Within one
/// version, members are only ever added as optionals and no enum gains a case, so an app built
/// against an older package of the same version keeps decoding. A change an older app could not
/// decode raises the version.
///
/// Example (version 2, keys sorted, a football match in the 67th minute):
/// ```json
/// {"awayScore": 1, "cards": [{"colour": "red", "minute": 52, "player": "Kane", "team": "away"}],
///  "clock": {"direction": "up", "label": "67'", "periodStartedAt": 786145500, "running": true,
///            "seconds": 2700},
///  "extra": {"corners": "5"}, "homeScore": 2,
///  "lastEvent": {"kind": "score", "minute": 67, "occurredAt": 786146820, "player": "Saka",
///                "team": "home", "text": "Saka curls it in"},
///  "period": "2H", "redCards": {"away": 1, "home": 0},
///  "scorers": [{"minute": 12, "ownGoal": false, "penalty": false, "player": "Saka", "team": "home"}],
///  "status": "live", "updatedAt": 786146820, "version": 2}
/// ```
public struct ContentState: Codable, Hashable, Sendable {
    /// The version of this shape the server writes today.
    public static let currentVersion = 2

    /// The shape's version: ``currentVersion`` (see the type's versioning note).
    public var version: Int
    /// Where the game is in its life.
    public var status: Status
    /// The home team's score (goals, points, runs).
    public var homeScore: Int
    /// The away team's score.
    public var awayScore: Int
    /// The feed's label of the current period or break ("1H", "HT", "Q3", "Top 7th"), when known.
    public var period: String?
    /// The game clock, anchored so the phone runs it itself; absent for sports without one
    /// (baseball) or when the feed sends none.
    public var clock: Clock?
    /// The last notable play (goal, card, penalty, substitution, period change…): kept until
    /// another notable play replaces it, never overwritten by a clock tick.
    public var lastEvent: Play?
    /// Every goal so far, oldest first (sports whose scores are few: football, hockey); empty
    /// for sports where a list of scorers means nothing (basketball, baseball).
    public var scorers: [Scorer]
    /// Cards shown so far, oldest first (sports with cards); empty otherwise.
    public var cards: [Card]
    /// Goals no longer listed in ``scorers``, per team: when a high-scoring game would not fit
    /// the 4 KB an update may carry, the oldest scorers are folded into this count. Absent
    /// while every goal is listed.
    public var earlierScorers: TeamTally?
    /// Cards no longer listed in ``cards``, per team, folded like ``earlierScorers``.
    public var earlierCards: TeamTally?
    /// Red cards (a second yellow counts as red) per team, for sports with cards; absent otherwise.
    public var redCards: TeamTally?
    /// The penalty shoot-out score, once a shoot-out has begun.
    public var shootout: TeamTally?
    /// Sport-specific values the feed sends, as text (`["corners": "5", "possession": "54"]`).
    public var extra: [String: String]
    /// When the newest play the state includes happened.
    public var updatedAt: Date

    /// Creates a state of the ``currentVersion``.
    public init(
        status: Status,
        homeScore: Int,
        awayScore: Int,
        period: String? = nil,
        clock: Clock? = nil,
        lastEvent: Play? = nil,
        scorers: [Scorer] = [],
        cards: [Card] = [],
        earlierScorers: TeamTally? = nil,
        earlierCards: TeamTally? = nil,
        redCards: TeamTally? = nil,
        shootout: TeamTally? = nil,
        extra: [String: String] = [:],
        updatedAt: Date
    ) {
        self.version = Self.currentVersion
        self.status = status
        self.homeScore = homeScore
        self.awayScore = awayScore
        self.period = period
        self.clock = clock
        self.lastEvent = lastEvent
        self.scorers = scorers
        self.cards = cards
        self.earlierScorers = earlierScorers
        self.earlierCards = earlierCards
        self.redCards = redCards
        self.shootout = shootout
        self.extra = extra
        self.updatedAt = updatedAt
    }
}

extension ContentState {
    /// Where a game is in its life.
    public enum Status: String, Codable, Hashable, Sendable, CaseIterable {
        /// Not started yet.
        case scheduled
        /// Being played (including breaks such as half-time).
        case live
        /// Interrupted indefinitely (weather, crowd…).
        case suspended
        /// Over.
        case final
        /// Called off or postponed.
        case cancelled
    }

    /// Which team something concerns.
    public enum Side: String, Codable, Hashable, Sendable, CaseIterable {
        /// The home team.
        case home
        /// The away team.
        case away
    }

    /// A number per team (red cards, shoot-out goals).
    public struct TeamTally: Codable, Hashable, Sendable {
        /// The home team's count.
        public var home: Int
        /// The away team's count.
        public var away: Int

        /// Creates a tally.
        public init(home: Int, away: Int) {
            self.home = home
            self.away = away
        }

        /// The count of `side`.
        public subscript(side: Side) -> Int {
            get { side == .home ? home : away }
            set { if side == .home { home = newValue } else { away = newValue } }
        }
    }
}
