import APNsCore
import DeliveryEngine
import Foundation
import ScorecastCore

/// A channel's outbox row as ingest found it (locked) before writing.
package struct PendingOutboxRow: Sendable, Hashable {
    /// `outbox.version`.
    package var version: Int64
    /// The row's content. Its ``OutboxEntry/eventIDs`` are `events.id` values as decimal text.
    package var entry: OutboxEntry
    /// Whether a worker holds a live lease on it: its payload is being sent right now.
    package var isLeased: Bool

    /// Creates a row.
    package init(version: Int64, entry: OutboxEntry, isLeased: Bool) {
        self.version = version
        self.entry = entry
        self.isLeased = isLeased
    }
}

/// An active channel bound to a game that accepted events, with what rendering and shaping
/// need to know about it.
package struct ChannelTarget: Sendable {
    /// `channels.id`.
    package var channelID: Int64
    /// The game it is bound to.
    package var gameID: String
    /// `channels.last_timestamp`: the newest `aps.timestamp` sent.
    package var lastTimestamp: Int
    /// When the channel's last successful send was, if ever.
    package var lastSentAt: Date?
    /// The renderer with its app's settings.
    package var renderer: LiveActivityRenderer
    /// Its outbox row, if it has one.
    package var pending: PendingOutboxRow?

    /// Creates a target.
    package init(
        channelID: Int64, gameID: String, lastTimestamp: Int, lastSentAt: Date?, renderer: LiveActivityRenderer,
        pending: PendingOutboxRow?
    ) {
        self.channelID = channelID
        self.gameID = gameID
        self.lastTimestamp = lastTimestamp
        self.lastSentAt = lastSentAt
        self.renderer = renderer
        self.pending = pending
    }
}

/// The row to write for one channel: `INSERT` when ``expectedVersion`` is 0, else an update
/// fenced on the row still having ``expectedVersion``.
package struct OutboxWrite: Sendable, Hashable {
    /// `channels.id`.
    package var channelID: Int64
    /// The version found (0: no row).
    package var expectedVersion: Int64
    /// The content to write.
    package var entry: OutboxEntry
    /// Whether the write replaces a row a worker is sending (the row keeps its lease, so the
    /// worker's fenced completion leaves it pending and it goes next).
    package var replacesLeased: Bool

    /// The version after the write.
    package var version: Int64 { expectedVersion + 1 }

    /// Creates a write.
    package init(channelID: Int64, expectedVersion: Int64, entry: OutboxEntry, replacesLeased: Bool) {
        self.channelID = channelID
        self.expectedVersion = expectedVersion
        self.entry = entry
        self.replacesLeased = replacesLeased
    }
}

/// Why an accepted event cannot be delivered: the request is refused whole.
package struct RenderRefusal: Error, Sendable, Hashable, CustomStringConvertible {
    /// The event's position in the request.
    package var index: Int
    /// The channel whose rendering failed.
    package var channelID: Int64
    /// What the renderer found.
    package var reason: LiveActivityPayloadError

    package var description: String {
        "the event cannot be delivered as a Live Activity update (channel \(channelID)): \(reason)"
    }
}

/// Renders every accepted event for every bound channel and merges the results into each
/// channel's single outbox row: the pure end of an ingest, decided before anything is written.
///
/// - The payload's `timestamp` never goes below the channel's last sent one nor the pending
///   row's (the renderer and ``OutboxMerge``).
/// - Every update merges into the channel's row (``OutboxMerge``): the newest state replaces
///   the older one, and an alerting update's alert joins the row's alert queue — coalescing
///   merges state, never announcements.
/// - A row being sent is merged into as well: its head alert is in flight and the send's
///   fenced completion removes it; what the update brought stays pending, due per shaping as
///   if the channel sent just now.
/// - Due time: ``ShapingPolicy`` (alerting now; routine one interval after the last send). A
///   notable play (a card, a period change: ``EventKind/isNotable``) is routine but goes at once
///   too: only stats and refreshes are spaced.
/// - A routine event that changed nothing the Live Activity shows (a clock tick the phone runs
///   itself: ``GameFold/Step/changesWhatIsShown``) writes nothing, not even the row it found.
/// - Each step's content-state is encoded once per date encoding and mapping, however many
///   channels' apps share them (``ContentStateMemo``); the rest of each payload is the channel's.
package struct OutboxPlanner: Sendable {
    /// Spacing of routine updates.
    package var shaping: ShapingPolicy

    /// Creates a planner.
    package init(shaping: ShapingPolicy) {
        self.shaping = shaping
    }

    /// The writes for `targets` after `fold`. `games` holds the info of every game with steps;
    /// `eventIDs[i]` is the `events.id` stored for request event `i`.
    package func plan(
        fold: GameFold, games: [String: GameInfo], targets: [ChannelTarget], eventIDs: [Int: Int64], now: Date
    ) throws(RenderRefusal) -> [OutboxWrite] {
        var contentStates = ContentStateMemo()
        return try plan(fold: fold, games: games, targets: targets, eventIDs: eventIDs, now: now, contentStates: &contentStates)
    }

    /// ``plan(fold:games:targets:eventIDs:now:)`` encoding each content-state once per step and
    /// shape in `contentStates`, a fresh memo (what it holds belongs to this `fold`).
    package func plan(
        fold: GameFold, games: [String: GameInfo], targets: [ChannelTarget], eventIDs: [Int: Int64], now: Date,
        contentStates: inout ContentStateMemo
    ) throws(RenderRefusal) -> [OutboxWrite] {
        struct Working {
            var expectedVersion: Int64
            var entry: OutboxEntry?
            /// Whether `entry` is the content a worker is sending right now.
            var inFlight: Bool
            var replacesLeased: Bool
            /// Whether a step of this plan changed the row: an unchanged row is not written,
            /// since a new version of a row in flight would make its send's completion keep
            /// the content it just sent pending, and send it again.
            var changed = false
        }
        var working: [Int64: Working] = [:]
        let ordered = targets.sorted { ($0.channelID, $0.gameID) < ($1.channelID, $1.gameID) }
        for target in ordered {
            guard let steps = fold.steps[target.gameID], !steps.isEmpty, let game = games[target.gameID] else { continue }
            var channel = working[target.channelID] ?? Working(
                expectedVersion: target.pending?.version ?? 0, entry: target.pending?.entry,
                inFlight: target.pending?.isLeased ?? false, replacesLeased: target.pending?.isLeased ?? false)
            for step in steps where step.changesWhatIsShown || target.renderer.settings.priority.isAlerting(step.event) {
                let floor = max(target.lastTimestamp, channel.entry?.payload.timestamp ?? 0)
                var update: RenderedUpdate
                do {
                    update = try target.renderer.render(
                        state: step.state, game: game, event: step.event,
                        contentState: contentStates.contentState(for: step, game: game, renderer: target.renderer),
                        channelLastTimestamp: floor, receivedAt: now)
                } catch {
                    throw RenderRefusal(index: step.index, channelID: target.channelID, reason: error)
                }
                update.eventID = eventIDs[step.index].map(String.init)
                // A row in flight: the send happening now counts as the channel's last one.
                let lastSentAt = channel.inFlight ? now : target.lastSentAt
                let dueAt = shaping.dueAt(isAlerting: update.isAlerting || step.event.kind.isNotable, now: now, lastSentAt: lastSentAt)
                if var pending = channel.entry {
                    // The in-flight content's due time has passed; what follows it is spaced from this send.
                    if channel.inFlight { pending.dueAt = dueAt }
                    channel.entry = OutboxMerge.merge(pending: pending, update: update, dueAt: dueAt, now: now)
                } else {
                    channel.entry = OutboxEntry(update: update, dueAt: dueAt, now: now)
                }
                channel.inFlight = false
                channel.changed = true
            }
            working[target.channelID] = channel
        }
        return working.compactMap { channelID, channel in
            guard channel.changed else { return nil }
            return channel.entry.map {
                OutboxWrite(
                    channelID: channelID, expectedVersion: channel.expectedVersion, entry: $0,
                    replacesLeased: channel.replacesLeased)
            }
        }.sorted { $0.channelID < $1.channelID }
    }
}
