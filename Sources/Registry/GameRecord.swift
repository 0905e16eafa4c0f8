import Foundation
import JSON
import Postgres
import ScorecastActivity
import ScorecastCore

/// One row of `games`: a feed's game, its folded state and when it last changed.
package struct GameRecord: Sendable, Hashable {
    /// The feed's game id.
    package var id: String
    /// The league, e.g. "Premier League".
    package var league: String
    /// The sport (per-sport settings such as staleness key on it).
    package var sport: String
    /// The home team's name.
    package var homeTeam: String
    /// The away team's name.
    package var awayTeam: String
    /// The home team's registered code and colours.
    package var homeIdentity: TeamIdentity
    /// The away team's registered code and colours.
    package var awayIdentity: TeamIdentity
    /// The scheduled start, when known.
    package var startsAt: Date?
    /// `scheduled`, `live`, `suspended` or `final`.
    package var status: String
    /// The folded state; `nil` while no event has been applied (`{}` in the table).
    package var state: GameState?
    /// The highest applied event `seq`.
    package var appliedSeq: Int64
    /// When the last applied event happened.
    package var lastEventAt: Date?
    /// When the row was created.
    package var createdAt: Date

    /// The columns `init(row:)` reads.
    package static let columns =
        "id, league, sport, home_team, away_team, starts_at, status, state, applied_seq, last_event_at, created_at, "
        + "home_code, away_code, home_primary_colour, home_secondary_colour, away_primary_colour, away_secondary_colour"

    /// The team on `side` as the Live Activity and the games API show it: the registered code
    /// and colours, each missing part filled from the feed's (``GameState/teams``), the rest
    /// fallen back (``TeamIdentity/attributes(name:)``). A game a feed created without names is
    /// "Home" v "Away".
    package func team(_ side: TeamSide) -> GameAttributes.Team {
        let (name, registered) = side == .home ? (homeTeam, homeIdentity) : (awayTeam, awayIdentity)
        let identity = registered.filled(from: state?.teams[side] ?? TeamIdentity())
        return identity.attributes(name: name.isEmpty ? (side == .home ? "Home" : "Away") : name)
    }

    /// Decodes a row selected with `columns`. A state that is not one `GameState` wrote (e.g.
    /// `{}` for a game without events) reads as nil.
    package init(row: PostgresRow) throws {
        id = try row.decode("id")
        league = try row.decode("league")
        sport = try row.decode("sport")
        homeTeam = try row.decode("home_team")
        awayTeam = try row.decode("away_team")
        homeIdentity = TeamIdentity(
            code: try row.decode("home_code", as: String?.self), primaryColour: try row.decode("home_primary_colour", as: String?.self),
            secondaryColour: try row.decode("home_secondary_colour", as: String?.self))
        awayIdentity = TeamIdentity(
            code: try row.decode("away_code", as: String?.self), primaryColour: try row.decode("away_primary_colour", as: String?.self),
            secondaryColour: try row.decode("away_secondary_colour", as: String?.self))
        startsAt = try row.decode("starts_at", as: Date?.self)
        status = try row.decode("status")
        let stateBytes = try row.decode("state", as: PostgresJSON.self).bytes
        if let value = try? JSONParser().parse(stateBytes), value.objectValue?.isEmpty == false {
            state = try? GameState(jsonValue: value)
        } else {
            state = nil
        }
        appliedSeq = try row.decode("applied_seq")
        lastEventAt = try row.decode("last_event_at", as: Date?.self)
        createdAt = try row.decode("created_at")
    }
}

/// What `games add` records.
package struct GameDraft: Sendable, Hashable {
    /// The feed's game id: 1–128 of letters, digits and `._:-`.
    package var id: String
    /// The league, e.g. "Premier League".
    package var league: String
    /// The sport (per-sport settings such as staleness key on it).
    package var sport: String
    /// The home team's name.
    package var homeTeam: String
    /// The away team's name.
    package var awayTeam: String
    /// The home team's code and colours (``TeamIdentity/parse(side:code:colours:)`` checks them).
    package var homeIdentity: TeamIdentity
    /// The away team's code and colours.
    package var awayIdentity: TeamIdentity
    /// The scheduled start, when known.
    package var startsAt: Date?

    /// Creates a draft.
    package init(
        id: String, league: String, sport: String = "football", homeTeam: String, awayTeam: String,
        homeIdentity: TeamIdentity = TeamIdentity(), awayIdentity: TeamIdentity = TeamIdentity(), startsAt: Date?
    ) {
        self.id = id
        self.league = league
        self.sport = sport
        self.homeTeam = homeTeam
        self.awayTeam = awayTeam
        self.homeIdentity = homeIdentity
        self.awayIdentity = awayIdentity
        self.startsAt = startsAt
    }

    /// Checks the id (the `games` table's rule) and that names are present and short.
    package func validate() throws(RegistryError) {
        try Self.checkID(id)
        for (option, value) in [("--league", league), ("--home", homeTeam), ("--away", awayTeam), ("--sport", sport)] {
            guard !value.trimmingCharacters(in: .whitespaces).isEmpty else { throw RegistryError(.invalidInput, "\(option) is empty") }
            guard value.count <= 200 else { throw RegistryError(.invalidInput, "\(option) is longer than 200 characters") }
        }
    }

    /// A game id: 1–128 ASCII letters, digits, `.`, `_`, `:` or `-`.
    package static func checkID(_ id: String, option: String = "--id") throws(RegistryError) {
        let allowed = id.utf8.allSatisfy { byte in
            (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
                || [UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: ":"), UInt8(ascii: "-")].contains(byte)
        }
        guard (1...128).contains(id.utf8.count), allowed else {
            throw RegistryError(.invalidInput, "\(option) must be 1–128 letters, digits, '.', '_', ':' or '-', got \"\(id.prefix(140))\"")
        }
    }
}
