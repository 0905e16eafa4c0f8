import APNsCore
import Foundation
import JSON
import ScorecastActivity

/// Renders a ``GameState`` as `content-state` through ``ScorecastActivity/ContentState``, the
/// very type the iOS app decodes, encoded with the app's ``ContentDateEncoding``.
public enum ContentStateRenderer {
    /// Every key of the shape, nested ones as `lastEvent.player` (array elements share their
    /// array's path: `scorers.player`): the paths a ``ContentStateMapping`` may name.
    public static let keyPaths: [String] = [
        "version", "status", "homeScore", "awayScore", "period",
        "clock", "clock.label", "clock.running", "clock.direction", "clock.seconds", "clock.periodStartedAt",
        "clock.stoppedAt", "clock.periodLength", "clock.addedMinutes",
        "lastEvent", "lastEvent.kind", "lastEvent.text", "lastEvent.team", "lastEvent.player", "lastEvent.minute",
        "lastEvent.addedMinute", "lastEvent.card", "lastEvent.ownGoal", "lastEvent.penalty", "lastEvent.occurredAt",
        "scorers", "scorers.team", "scorers.player", "scorers.minute", "scorers.addedMinute", "scorers.ownGoal",
        "scorers.penalty",
        "cards", "cards.team", "cards.player", "cards.minute", "cards.addedMinute", "cards.colour",
        "earlierScorers", "earlierScorers.home", "earlierScorers.away", "earlierCards", "earlierCards.home", "earlierCards.away",
        "redCards", "redCards.home", "redCards.away", "shootout", "shootout.home", "shootout.away",
        "extra", "updatedAt",
    ]

    /// The content-state value of `state` as `profile`'s sport shows it. `updatedAt` is the
    /// last event's time, or `fallbackTime` for a game without events.
    ///
    /// - `clock`: for sports with a clock, the anchor (running from `periodStartedAt`, or
    ///   stopped at `stoppedAt`), the profile's direction and period length, and the label.
    /// - `scorers`, `cards` and `redCards` only for sports that list them.
    public static func contentState(of state: GameState, profile: SportProfile = .generic, fallbackTime: Date) -> ContentState {
        var content = ContentState(
            status: ContentState.Status(state.status),
            homeScore: state.homeScore,
            awayScore: state.awayScore,
            period: state.period,
            shootout: state.shootout,
            extra: state.extra.mapValues(text(of:)),
            updatedAt: state.updatedAt ?? fallbackTime
        )
        if let direction = profile.clockDirection, state.clock != nil || state.clockAnchor != nil {
            let anchor = state.clockAnchor
            let running = anchor?.running ?? false
            content.clock = ContentState.Clock(
                label: state.clock, running: running, direction: direction, seconds: anchor?.seconds,
                periodStartedAt: running ? anchor?.at : nil, stoppedAt: running ? nil : anchor?.at,
                periodLength: profile.periodLength, addedMinutes: state.addedMinutes
            )
        }
        if let last = state.lastEvent {
            content.lastEvent = ContentState.Play(
                kind: last.kind, text: last.description,
                team: last.team.map(ContentState.Side.init), player: last.player,
                minute: profile.countsMinutes ? last.minute : nil, addedMinute: profile.countsMinutes ? last.addedMinute : nil,
                card: last.card, ownGoal: last.ownGoal, penalty: last.penalty, occurredAt: last.occurredAt
            )
        }
        if profile.listsScorers { content.scorers = state.scorers }
        if profile.hasCards {
            content.cards = state.cards
            content.redCards = state.redCards
        }
        return content
    }

    /// The content-state JSON of `state`, dates written per `dateEncoding`.
    public static func render(
        _ state: GameState, profile: SportProfile = .generic, dateEncoding: ContentDateEncoding, fallbackTime: Date
    ) throws(LiveActivityPayloadError) -> JSONValue {
        try encode(contentState(of: state, profile: profile, fallbackTime: fallbackTime), dateEncoding: dateEncoding)
    }

    /// `content` as JSON, dates written per `dateEncoding`: the app's `Codable` conformance
    /// itself does the writing, so the JSON is exactly what its decoder reads.
    public static func encode(_ content: ContentState, dateEncoding: ContentDateEncoding) throws(LiveActivityPayloadError) -> JSONValue {
        // The only thing a JSON encoder refuses in this shape is a non-finite clock number.
        guard let json = try? dateEncoding.json(content) else {
            throw LiveActivityPayloadError.nonFiniteNumber(path: "content-state")
        }
        return json
    }

    /// An `extra` value as text: strings as is, numbers and booleans as their JSON text.
    static func text(of value: JSONValue) -> String {
        switch value {
        case .string(let text): return text
        case .bool(let flag): return flag ? "true" : "false"
        case .integer(let number): return String(number)
        case .double(let number): return (try? JSONValue.double(number).encodedString()) ?? String(number)
        case .null, .array, .object: return (try? value.encodedString()) ?? ""
        }
    }
}

extension ContentState.Status {
    /// The content-state status of a game status.
    init(_ status: GameStatus) {
        switch status {
        case .scheduled: self = .scheduled
        case .live: self = .live
        case .suspended: self = .suspended
        case .final: self = .final
        case .cancelled: self = .cancelled
        }
    }
}

extension ContentState.Side {
    /// The content-state side of a feed team side.
    init(_ side: TeamSide) {
        self = side == .home ? .home : .away
    }
}
