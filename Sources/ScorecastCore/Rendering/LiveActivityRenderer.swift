import APNsCore
import Foundation
import JSON
import ScorecastActivity

/// Renders a game's state into one channel's Live Activity update, per the app's
/// ``RenderSettings``:
///
/// - `content-state`: the default shape (``ScorecastActivity/ContentState``, rendered by ``ContentStateRenderer``) mapped per app, dates per app.
/// - `event`: `end` once the game is over (final or cancelled), with a ``DismissalDate`` counted
///   from the time the final reached the server (the event's own time when that is later): the
///   earliest it can be sent, stamped again with the real send time by ``ComposedSend``;
///   `update` otherwise, with `stale-date` from
///   ``StalenessPolicy`` (arrival or event time, whichever is later, + the sport's staleness,
///   + a break's expected length).
/// - the game's ``SportProfile`` (from its sport) shapes the clock and the lists.
/// - `timestamp`: the event's time in whole seconds, but never later than the server's clock
///   (`receivedAt`: a feed whose clock runs fast must not put the phone's view in the future,
///   where every honest update after it would look older) and never earlier than the channel's
///   last timestamp, so a late event can never be dropped by the phone as older than what it
///   shows.
/// - alerting events (``PriorityPolicy``) get priority 10 and an `alert` from ``AlertCatalog``;
///   routine ones priority 5 and none.
/// - `relevance-score` from the game status.
///
/// The content-state is fitted into its budget, below 4 KB (``ContentStateFit``:
/// older plays folded into counts, long texts cut, optional fields dropped), so a valid event
/// is never refused for size. The result is checked for a broadcast: Live Activity data within
/// 4 KB, body within 5,120 bytes; otherwise a ``LiveActivityPayloadError`` with the sizes.
public struct LiveActivityRenderer: Sendable {
    /// The app's settings.
    public var settings: RenderSettings

    /// Creates a renderer for one app.
    public init(settings: RenderSettings = RenderSettings()) {
        self.settings = settings
    }

    /// Renders the update caused by `event`, which produced `state` (the state after folding it).
    ///
    /// - Parameters:
    ///   - channelLastTimestamp: the `aps.timestamp` last rendered for this channel, if any.
    ///   - receivedAt: when the event reached the server (stale-date counts from it when later
    ///     than the event's own time).
    public func render(
        state: GameState, game: GameInfo, event: FeedEvent, channelLastTimestamp: Int?, receivedAt: Date? = nil
    ) throws(LiveActivityPayloadError) -> RenderedUpdate {
        try render(
            state: state, game: game, event: event,
            contentState: contentState(state: state, game: game, occurredAt: event.occurredAt),
            channelLastTimestamp: channelLastTimestamp, receivedAt: receivedAt)
    }

    /// ``render(state:game:event:channelLastTimestamp:receivedAt:)`` with the content-state
    /// already made by ``contentState(state:game:occurredAt:)`` of this renderer, or of one with
    /// the same ``RenderSettings/dateEncoding`` and ``RenderSettings/mapping``: channels of apps
    /// that share those share one encoding.
    public func render(
        state: GameState, game: GameInfo, event: FeedEvent, contentState: JSONValue, channelLastTimestamp: Int?,
        receivedAt: Date? = nil
    ) throws(LiveActivityPayloadError) -> RenderedUpdate {
        // A score that went down is a correction (the fold says so): never announced as a goal.
        let alerting = settings.priority.isAlerting(event) && !(event.kind == .score && state.correction == event.id)
        // The alert is made of catalog keys and these structured values only: the feed's
        // free-text description would reach every phone in the feed's language.
        // Names are cut so an alert always fits beside a content-state within its budget.
        func short(_ text: String) -> String { ContentStateFit.cut(text, to: ContentStateFit.alertArgumentLength) }
        var values: [AlertCatalog.Argument: String] = [
            .home: short(game.homeName), .away: short(game.awayName),
            .homeScore: String(state.homeScore), .awayScore: String(state.awayScore),
        ]
        values[.team] = event.team.map { short(game.name(of: $0)) }
        values[.player] = (event.shortName ?? event.player).map(short)
        if let last = state.lastEvent, last.id == event.id, let minute = last.minute {
            values[.minute] = ContentState.minuteText(minute, added: last.addedMinute)
        }
        values[.period] = state.period
        values[.clock] = state.clock
        let alert = alerting
            ? AlertCatalog.alert(
                for: event.kind, values: values, conditions: AlertCatalog.conditions(of: event), style: settings.alertStyle,
                sound: settings.alertSound)
            : nil
        return try render(
            state: state, game: game, contentState: contentState, occurredAt: event.occurredAt, receivedAt: receivedAt,
            alert: alert, priority: alerting ? .immediate : .opportunistic, eventID: event.id,
            channelLastTimestamp: channelLastTimestamp
        )
    }

    /// Renders the current state without an event (a channel newly bound to a running game):
    /// routine, no alert; the time is the last event's, or `now` for a game without events.
    public func renderSnapshot(
        state: GameState, game: GameInfo, now: Date, channelLastTimestamp: Int?
    ) throws(LiveActivityPayloadError) -> RenderedUpdate {
        let occurredAt = state.updatedAt ?? now
        return try render(
            state: state, game: game, contentState: contentState(state: state, game: game, occurredAt: occurredAt),
            occurredAt: occurredAt, receivedAt: now, alert: nil, priority: .opportunistic, eventID: nil,
            channelLastTimestamp: channelLastTimestamp
        )
    }

    /// The `content-state` of `state` in this app's shape (its mapping and date encoding; the
    /// game's sport), `occurredAt` standing in for `updatedAt` in a game without events: the
    /// one part of an update that costs an encoding, and the same for every app whose
    /// ``RenderSettings/dateEncoding`` and ``RenderSettings/mapping`` are the same.
    public func contentState(state: GameState, game: GameInfo, occurredAt: Date) throws(LiveActivityPayloadError) -> JSONValue {
        try fittedContentState(state: state, game: game, occurredAt: occurredAt).json
    }

    /// ``contentState(state:game:occurredAt:)``, fitted into ``ContentStateFit/budget`` (as
    /// sent: mapped, UTF-8) by ``ContentStateFit``, and what was given up to fit.
    public func fittedContentState(
        state: GameState, game: GameInfo, occurredAt: Date
    ) throws(LiveActivityPayloadError) -> (json: JSONValue, steps: [ContentStateFit.Step]) {
        let content = ContentStateRenderer.contentState(of: state, profile: SportProfile.for(game.sport), fallbackTime: occurredAt)
        var json = JSONValue.null
        let fitted = try ContentStateFit.fit(content) { candidate throws(LiveActivityPayloadError) in
            json = settings.mapping.apply(to: try ContentStateRenderer.encode(candidate, dateEncoding: settings.dateEncoding))
            guard let bytes = try? json.encoded() else { throw .nonFiniteNumber(path: "$.aps.content-state") }
            return bytes.count
        }
        // `fit` sizes the content it returns last, so `json` is its encoding.
        return (json, fitted.steps)
    }

    private func render(
        state: GameState, game: GameInfo, contentState: JSONValue, occurredAt: Date, receivedAt: Date?,
        alert: LiveActivityAlert?, priority: BroadcastPriority, eventID: String?, channelLastTimestamp: Int?
    ) throws(LiveActivityPayloadError) -> RenderedUpdate {
        let eventSeconds = Int(occurredAt.timeIntervalSince1970.rounded(.down))
        let serverSeconds = receivedAt.map { Int($0.timeIntervalSince1970.rounded(.down)) } ?? eventSeconds
        let notAhead = min(eventSeconds, serverSeconds)
        let timestamp = max(notAhead, channelLastTimestamp ?? notAhead)
        var payload = LiveActivityPayload(
            timestamp: timestamp,
            event: state.status.isOver ? .end : .update,
            contentState: contentState,
            relevanceScore: settings.relevance.score(for: state.status),
            alert: alert
        )
        if state.status.isOver {
            let sendableFrom = max(occurredAt, receivedAt ?? occurredAt)
            payload.dismissalDate = DismissalDate.of(
                endSentAt: Int(sendableFrom.timeIntervalSince1970.rounded(.down)), delay: Int(settings.dismissalDelay.rounded(.down)))
        } else {
            payload.staleDate = settings.staleness.staleDate(
                occurredAt: occurredAt, receivedAt: receivedAt, sport: game.sport, period: state.period)
        }
        let body = try payload.encode(for: .broadcast)
        return RenderedUpdate(payload: payload, body: body, priority: priority, isAlerting: alert != nil, eventID: eventID)
    }
}
