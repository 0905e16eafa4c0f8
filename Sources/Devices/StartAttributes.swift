import Foundation
import JSON
import Registry
import ScorecastActivity
import ScorecastCore

/// The `attributes` of a push-to-start: the app's own `GameAttributes` (`ScorecastActivity`),
/// encoded by its `Codable` conformance with every date written like the app's content-state.
/// Each team carries its code and colours: registered, else the feed's, else fallen back
/// (``GameRecord/team(_:)``).
enum StartAttributes {
    /// `attributes-type`.
    static let typeName = GameAttributes.typeName

    /// The attributes of `game` for an app whose dates use `dateEncoding`.
    static func encode(_ game: GameRecord, dateEncoding: ContentDateEncoding) throws -> JSONValue {
        try dateEncoding.json(GameAttributes(
            gameID: game.id, sport: game.sport, league: game.league,
            home: game.team(.home), away: game.team(.away),
            startsAt: game.startsAt ?? game.createdAt))
    }
}
