/// Why an ingest was refused after validation; nothing was written.
public enum IngestError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Events name games that do not exist and unknown games are refused
    /// (`SCORECAST_UNKNOWN_GAMES=refuse`): the events' positions in the request.
    case unknownGames([Int])
    /// An accepted event renders into a Live Activity that cannot be sent (over 4 KB).
    case unrenderable(RenderRefusal)

    public var description: String {
        switch self {
        case .unknownGames(let indices):
            "\(indices.count) event(s) name a game that does not exist, and unknown games are refused"
        case .unrenderable(let refusal):
            refusal.description
        }
    }
}

/// The outbox changed between reading and writing it (another ingest created or replaced a
/// row of a channel bound to two games): the transaction is retried.
struct OutboxConflict: Error {}
