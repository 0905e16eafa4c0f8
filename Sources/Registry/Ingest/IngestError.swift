import ServiceBase
/// Why an ingest was refused after validation; nothing was written.
package enum IngestError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Events name games that do not exist and unknown games are refused
    /// (`SCORECAST_UNKNOWN_GAMES=refuse`): the events' positions in the request.
    case unknownGames([Int])
    /// An accepted event renders into a Live Activity that cannot be sent (over 4 KB).
    case unrenderable(RenderRefusal)
    /// The events name `new` unknown games, more than the feed may still create this hour
    /// (`SCORECAST_FEED_GAMES_PER_HOUR` = `limit`, `remaining` left): the events' positions.
    case gameQuotaExceeded(indices: [Int], new: Int, remaining: Int, limit: Int)

    /// The reason it is counted under.
    package var refusal: IngestRefusal {
        switch self {
        case .unknownGames: .unknownGame
        case .unrenderable: .unrenderable
        case .gameQuotaExceeded: .gameQuota
        }
    }

    package var description: String {
        switch self {
        case .unknownGames(let indices):
            "\(indices.count) event(s) name a game that does not exist, and unknown games are refused"
        case .unrenderable(let refusal):
            refusal.description
        case .gameQuotaExceeded(_, let new, let remaining, let limit):
            "the events name \(new) unknown game(s); this feed may create \(remaining) more this hour (\(limit) an hour)"
        }
    }
}

