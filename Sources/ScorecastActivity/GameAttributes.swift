import Foundation

/// The static attributes of a game's Live Activity: what does not change while it runs.
///
/// Declared once in the app as the activity's attributes type (it is `ActivityAttributes` on
/// iOS, with ``ContentState`` as its content state), and sent by the server as `attributes`
/// when it starts an activity by push-to-start (`attributes-type`: ``typeName``).
public struct GameAttributes: Codable, Hashable, Sendable {
    /// The name to send as `attributes-type` in a push-to-start payload: the Swift type's name.
    public static let typeName = "GameAttributes"

    /// The feed's game id: the id the app passes to `GET /v1/games/{id}/channels`.
    public var gameID: String
    /// The sport (`football`, `basketball`, `baseball`…).
    public var sport: String
    /// The league or competition ("Premier League").
    public var league: String
    /// The home team.
    public var home: Team
    /// The away team.
    public var away: Team
    /// The scheduled start.
    public var startsAt: Date

    /// Creates the attributes.
    public init(gameID: String, sport: String, league: String, home: Team, away: Team, startsAt: Date) {
        self.gameID = gameID
        self.sport = sport
        self.league = league
        self.home = home
        self.away = away
        self.startsAt = startsAt
    }

    /// The team on `side`.
    public func team(_ side: ContentState.Side) -> Team {
        side == .home ? home : away
    }
}
