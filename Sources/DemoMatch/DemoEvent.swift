import Foundation
import ScorecastCore
import JSON

/// One event of the demo match, in the JSON shape a sports feed posts to `POST /v1/events`:
///
/// ```json
/// {"id": "demo-nbu-cfc-0012", "game": "demo-nbu-cfc", "seq": 12,
///  "occurredAt": "2025-11-29T20:01:30Z", "kind": "score",
///  "scoreboard": {"home": 1, "away": 0, "period": "1H", "clock": "12'", "extra": {"assist": "Tomás Ferreira"}},
///  "description": "GOAL! Northbridge United 1-0 Castleford City. …", "team": "home", "player": "Marcus Bell"}
/// ```
/// `team` and `player` are omitted when they do not apply; `extra` holds scalars only.
package struct DemoEvent: Codable, Sendable, Equatable {
    /// The feed's event id, unique per feed (the idempotency key).
    package var id: String
    /// The game's external id.
    package var game: String
    /// Per-game sequence number, strictly increasing from 1.
    package var seq: Int
    /// When the event happened (RFC 3339, whole seconds, UTC).
    package var occurredAt: Date
    /// What kind of event it is.
    package var kind: DemoEventKind
    /// The scoreboard after the event.
    package var scoreboard: DemoScoreboard
    /// A human-readable description, as a feed would write it.
    package var description: String
    /// The side the event is about, if any.
    package var team: DemoTeamSide?
    /// The player the event is about, if any.
    package var player: String?
    /// The player's short name (the surname), for tight layouts.
    package var shortName: String?
    /// A card's colour: `yellow`, `second-yellow` or `red`.
    package var card: String?
    /// A goal from the penalty spot.
    package var penalty: Bool?

    /// Creates an event.
    package init(
        id: String, game: String, seq: Int, occurredAt: Date, kind: DemoEventKind, scoreboard: DemoScoreboard, description: String,
        team: DemoTeamSide?, player: String?, shortName: String? = nil, card: String? = nil, penalty: Bool? = nil
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
        self.shortName = shortName
        self.card = card
        self.penalty = penalty
    }

    private enum CodingKeys: String, CodingKey {
        case id, game, seq, occurredAt, kind, scoreboard, description, team, player, shortName, card, penalty
    }

    /// Decodes the feed shape; `occurredAt` must be an RFC 3339 string.
    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(String.self, forKey: .id)
        game = try container.decode(String.self, forKey: .game)
        seq = try container.decode(Int.self, forKey: .seq)
        let text = try container.decode(String.self, forKey: .occurredAt)
        guard let date = RFC3339.parse(text) else {
            throw DecodingError.dataCorruptedError(forKey: .occurredAt, in: container, debugDescription: "occurredAt \"\(text)\" is not an RFC 3339 time")
        }
        occurredAt = date
        kind = try container.decode(DemoEventKind.self, forKey: .kind)
        scoreboard = try container.decode(DemoScoreboard.self, forKey: .scoreboard)
        description = try container.decode(String.self, forKey: .description)
        team = try container.decodeIfPresent(DemoTeamSide.self, forKey: .team)
        player = try container.decodeIfPresent(String.self, forKey: .player)
        shortName = try container.decodeIfPresent(String.self, forKey: .shortName)
        card = try container.decodeIfPresent(String.self, forKey: .card)
        penalty = try container.decodeIfPresent(Bool.self, forKey: .penalty)
    }

    /// Encodes the feed shape, `occurredAt` as RFC 3339 whatever the encoder's date strategy.
    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(game, forKey: .game)
        try container.encode(seq, forKey: .seq)
        try container.encode(RFC3339.format(occurredAt), forKey: .occurredAt)
        try container.encode(kind, forKey: .kind)
        try container.encode(scoreboard, forKey: .scoreboard)
        try container.encode(description, forKey: .description)
        try container.encodeIfPresent(team, forKey: .team)
        try container.encodeIfPresent(player, forKey: .player)
        try container.encodeIfPresent(shortName, forKey: .shortName)
        try container.encodeIfPresent(card, forKey: .card)
        try container.encodeIfPresent(penalty, forKey: .penalty)
    }

    /// The event as compact JSON with sorted keys.
    package func jsonData() throws -> Data {
        Data(try JSONCoding.encode(self))
    }
}

/// The kinds of feed event.
package enum DemoEventKind: String, Codable, Sendable, CaseIterable {
    /// The game is announced with its kick-off time.
    case scheduled
    /// Kick-off.
    case start
    /// A goal.
    case score
    /// A period change: half-time, second half under way.
    case period
    /// A clock tick (also added time announcements).
    case clock
    /// A yellow or red card.
    case card
    /// A substitution.
    case substitution
    /// A video assistant referee check or decision.
    case `var`
    /// Match statistics (shots, possession, corners…).
    case stats
    /// Full time.
    case final
}

/// Which side an event is about.
package enum DemoTeamSide: String, Codable, Sendable, CaseIterable {
    /// The home team.
    case home
    /// The away team.
    case away
}

/// The period of a football match.
package enum DemoPeriod: String, Codable, Sendable, CaseIterable {
    /// First half.
    case firstHalf = "1H"
    /// Half-time.
    case halfTime = "HT"
    /// Second half.
    case secondHalf = "2H"
    /// Full time.
    case fullTime = "FT"
}

/// The scoreboard after an event.
package struct DemoScoreboard: Codable, Sendable, Equatable {
    /// Home goals.
    package var home: Int
    /// Away goals.
    package var away: Int
    /// Period.
    package var period: DemoPeriod
    /// Match clock, e.g. `67'` or `45+2'`.
    package var clock: String
    /// Event-specific details (assist, shots…), scalars only.
    package var extra: [String: DemoScalar]
    /// Announced added time in minutes, when announced.
    package var addedTime: Int?

    /// Creates a scoreboard.
    package init(home: Int, away: Int, period: DemoPeriod, clock: String, extra: [String: DemoScalar], addedTime: Int? = nil) {
        self.home = home
        self.away = away
        self.period = period
        self.clock = clock
        self.extra = extra
        self.addedTime = addedTime
    }
}

/// A JSON scalar: string, integer, number or boolean.
package enum DemoScalar: Codable, Sendable, Equatable, ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByBooleanLiteral {
    /// A string.
    case string(String)
    /// An integer.
    case int(Int)
    /// A floating-point number.
    case double(Double)
    /// A boolean.
    case bool(Bool)

    /// A string scalar from a literal.
    package init(stringLiteral value: String) { self = .string(value) }
    /// An integer scalar from a literal.
    package init(integerLiteral value: Int) { self = .int(value) }
    /// A boolean scalar from a literal.
    package init(booleanLiteral value: Bool) { self = .bool(value) }

    /// Decodes any JSON scalar; arrays, objects and null are refused.
    package init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int.self) {
            self = .int(value)
        } else if let value = try? container.decode(Double.self) {
            self = .double(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "extra values must be strings, numbers or booleans")
        }
    }

    /// Encodes the scalar as itself.
    package func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .string(let value): try container.encode(value)
        case .int(let value): try container.encode(value)
        case .double(let value): try container.encode(value)
        case .bool(let value): try container.encode(value)
        }
    }
}
