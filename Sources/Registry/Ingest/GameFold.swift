import ScorecastCore
import ServiceBase

/// Folds one request's new events into their games' states: the pure middle of an ingest.
///
/// Duplicates are skipped. The remaining events of each game are applied in `seq` order (ties
/// keep request order), so a batch's outcome does not depend on how the feed ordered it; each
/// is `accepted` when newer than the state so far (``GameState/applying(_:)``), else `stale`.
package struct GameFold: Sendable, Hashable {
    /// One accepted event and the game state right after it.
    package struct Step: Sendable, Hashable {
        /// The event's position in the request.
        package var index: Int
        /// The event.
        package var event: FeedEvent
        /// The state after folding it.
        package var state: GameState
        /// Whether it changed what the Live Activity shows (``GameState/shownSeq`` moved): a
        /// routine event that did not needs no push.
        package var changesWhatIsShown: Bool
    }

    /// One outcome per event, in request order.
    package private(set) var outcomes: [IngestOutcome]
    /// Accepted events per game, in the order they were applied.
    package private(set) var steps: [String: [Step]]
    /// The final state of every game that accepted at least one event.
    package private(set) var states: [String: GameState]

    /// Folds `events` (request order) into `games` (the current state of every game named by
    /// an event). `isDuplicate[i]` says whether event `i` was already stored. An event whose
    /// game is missing from `games` starts from ``GameState/initial``. `sports` names each
    /// game's sport (``SportProfile/for(_:)``; generic when missing). `notice` decides which
    /// steps change what is shown.
    package init(
        events: [FeedEvent], isDuplicate: [Bool], games: [String: GameState], sports: [String: String] = [:],
        notice: NoticePolicy = NoticePolicy()
    ) {
        precondition(events.count == isDuplicate.count, "one duplicate flag per event")
        outcomes = isDuplicate.map { $0 ? .duplicate : .stale }
        steps = [:]
        states = [:]
        var current = games
        let order = events.indices
            .filter { !isDuplicate[$0] }
            .sorted { (events[$0].game, events[$0].seq, $0) < (events[$1].game, events[$1].seq, $1) }
        for index in order {
            let event = events[index]
            let before = current[event.game] ?? .initial
            let profile = SportProfile.for(sports[event.game] ?? "")
            guard let after = before.applying(event, profile: profile, notice: notice).state else { continue }
            current[event.game] = after
            states[event.game] = after
            steps[event.game, default: []].append(
                Step(index: index, event: event, state: after, changesWhatIsShown: after.shownSeq == event.seq))
            outcomes[index] = .accepted
        }
    }

    /// Indices of the events stored as `stale`.
    package var staleIndices: [Int] { outcomes.indices.filter { outcomes[$0] == .stale } }
}
