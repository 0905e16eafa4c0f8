import ScorecastActivity

/// What happened in a game, as a feed reports it.
///
/// The list is sport-neutral on purpose: a goal, a try, a touchdown and a basket are all
/// ``score``; the scoreboard says what the score now is. Kinds decide the default priority
/// (``PriorityPolicy``), the game status change (``GameState/applying(_:)``) and the alert text
/// (``AlertCatalog``).
///
/// | kind | meaning | status after |
/// |---|---|---|
/// | `scheduled` | fixture created or moved | unchanged |
/// | `start` | the game began | live |
/// | `score` | points, goals, runs… | live if it was scheduled |
/// | `period` | a period, half, quarter, inning or break began | live if it was scheduled |
/// | `clock` | clock tick or correction | live if it was scheduled |
/// | `card` | a card or a penalty foul for a player | live if it was scheduled |
/// | `substitution` | a player change | live if it was scheduled |
/// | `var` | video review started or decided | live if it was scheduled |
/// | `penalty` | a penalty awarded (kick, shot, free throw) | live if it was scheduled |
/// | `timeout` | a timeout | live if it was scheduled |
/// | `stats` | statistics changed (`extra`) | live if it was scheduled |
/// | `suspended` | play interrupted indefinitely (weather, crowd…) | suspended |
/// | `resumed` | play resumed after a suspension | live |
/// | `final` | the game is over | final |
/// | `cancelled` | the game was called off or postponed | cancelled |
///
/// It is the iOS contract's own type (`ScorecastActivity.ContentState.Play.Kind`): the feed's
/// kinds and the kinds a phone decodes are one list, so they cannot drift.
public typealias EventKind = ContentState.Play.Kind

extension EventKind {
    /// Whether the play stays on the Live Activity as its `lastEvent` until another notable play
    /// replaces it: everything but fixture changes, clock ticks and statistics.
    public var isNotable: Bool {
        switch self {
        case .scheduled, .clock, .stats: false
        default: true
        }
    }
}
