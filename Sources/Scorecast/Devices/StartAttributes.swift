import Foundation
import JSON
import ScorecastCore

/// The `attributes` of a push-to-start: the static facts of the game, in the shape of the app's
/// `GameAttributes` (`ScorecastActivity`): `gameID`, `sport`, `league`, `home`/`away` as
/// `{"name": …}`, and `startsAt` encoded like every date of the app's content-state.
///
/// The one place that knows that shape, so that encoding the shared `GameAttributes` type
/// instead is a change of this function alone.
enum StartAttributes {
    /// `attributes-type`.
    static let typeName = "GameAttributes"

    /// The attributes of `game` for an app whose dates use `dateEncoding`.
    static func encode(_ game: GameRecord, dateEncoding: ContentDateEncoding) -> JSONValue {
        let startsAt = game.startsAt ?? game.createdAt
        return .object([
            "gameID": .string(game.id),
            "sport": .string(game.sport),
            "league": .string(game.league),
            "home": .object(["name": .string(game.homeTeam.isEmpty ? "Home" : game.homeTeam)]),
            "away": .object(["name": .string(game.awayTeam.isEmpty ? "Away" : game.awayTeam)]),
            "startsAt": dateEncoding.jsonValue(for: startsAt),
        ])
    }
}
