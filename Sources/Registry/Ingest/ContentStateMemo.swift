import APNsCore
import JSON
import ScorecastCore

/// The content-states already encoded within one ``OutboxPlanner`` plan. A content-state
/// depends on the game's step and on two of the app's settings alone (date encoding and key
/// mapping); a game has a channel per app, and apps mostly share those two, so one encoding
/// serves them all (with four apps per game each step used to be encoded four times).
package struct ContentStateMemo {
    private struct Key: Hashable {
        /// The step's event position in the request: one step of one game.
        var stepIndex: Int
        var dateEncoding: ContentDateEncoding
        var mapping: ContentStateMapping
    }

    private var encoded: [Key: JSONValue] = [:]
    /// How many content-states were encoded rather than found here.
    package private(set) var encodings = 0
    /// Content-states that had to give something up to fit 4 KB: the event's id and the steps.
    package private(set) var fitted: [(eventID: String, steps: [ContentStateFit.Step])] = []

    /// An empty memo, for one plan (steps are known by their position in its request).
    package init() {}

    /// The content-state `renderer` puts in its update for `step` of `game`.
    package mutating func contentState(
        for step: GameFold.Step, game: GameInfo, renderer: LiveActivityRenderer
    ) throws(LiveActivityPayloadError) -> JSONValue {
        let key = Key(stepIndex: step.index, dateEncoding: renderer.settings.dateEncoding, mapping: renderer.settings.mapping)
        if let known = encoded[key] { return known }
        let (contentState, steps) = try renderer.fittedContentState(state: step.state, game: game, occurredAt: step.event.occurredAt)
        encodings += 1
        if !steps.isEmpty { fitted.append((step.event.id, steps)) }
        encoded[key] = contentState
        return contentState
    }
}
