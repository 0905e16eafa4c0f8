import Postgres

/// Which deliveries and feed events a statistics request covers.
enum StatsScope: Sendable, Equatable {
    /// Everything.
    case all
    /// One app's deliveries; the events of games bound to its channels.
    case app(Int64)
    /// These channels' deliveries; the events of `games`.
    case channels([Int64], games: [String])

    /// Whether the per-minute roll-ups hold this scope's figures (they are kept per app).
    var hasRollups: Bool {
        switch self {
        case .all, .app: true
        case .channels: false
        }
    }

    /// Whether events that left no row (duplicates, rejected) count: they are known only in total.
    var countsUnattributedEvents: Bool { self == .all }

    /// The condition on `deliveries` (or a roll-up table keyed by `app_id`) rows.
    var deliveriesCondition: SQL {
        switch self {
        case .all: "true"
        case .app(let id): "app_id = \(id)"
        case .channels(let ids, _): "channel_id = ANY(\(ids))"
        }
    }

    /// The condition on roll-up rows keyed by `app_id` (only for scopes with roll-ups).
    var rollupCondition: SQL {
        switch self {
        case .all, .channels: "true"
        case .app(let id): "app_id = \(id)"
        }
    }

    /// The condition on `events` rows.
    var eventsCondition: SQL {
        switch self {
        case .all:
            "true"
        case .app(let id):
            "game_id IN (SELECT b.game_id FROM channel_bindings b JOIN channels c ON c.id = b.channel_id WHERE c.app_id = \(id))"
        case .channels(_, let games):
            "game_id = ANY(\(games))"
        }
    }
}
