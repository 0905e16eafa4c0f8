import Foundation

/// `GET /v1/games/{id}/live`: what the dashboard's game view shows — the scoreboard, every
/// channel bound to the game with its budget and what its phones show, the game's latest
/// deliveries and the announcements its channels still owe.
package struct GameLiveResponse: Codable, Sendable, Equatable {
    /// When the snapshot was taken.
    package var generatedAt: Date
    /// The game and its scoreboard.
    package var game: LiveGame
    /// Every channel bound to the game, active ones first.
    package var channels: [GameChannelStatus]
    /// The latest delivery attempts to the game's channels, newest first (at most 25).
    package var recentDeliveries: [RecentDelivery]
    /// Alerts queued and not yet accepted by APNs, oldest first.
    package var pendingAlerts: [PendingAlert]

    /// Creates a snapshot.
    package init(generatedAt: Date, game: LiveGame, channels: [GameChannelStatus], recentDeliveries: [RecentDelivery], pendingAlerts: [PendingAlert]) {
        self.generatedAt = generatedAt
        self.game = game
        self.channels = channels
        self.recentDeliveries = recentDeliveries
        self.pendingAlerts = pendingAlerts
    }
}

/// One channel of a game.
package struct GameChannelStatus: Codable, Sendable, Equatable {
    /// The APNs channel id.
    package var channel: String
    /// The bundle id of its app.
    package var app: String
    /// `sandbox` or `production`.
    package var environment: String
    /// `active`, `retiring`, `deleted` or `gone`.
    package var status: String
    /// Whether an update waits in the outbox for it.
    package var pendingUpdate: Bool
    /// Its priority-10 budget in the current hour.
    package var budget: ChannelBudgetStatus?
    /// What its phones show now, from the last bodies APNs accepted; `nil` before the first.
    package var face: ActivityFace?

    /// Creates a status.
    package init(
        channel: String, app: String, environment: String, status: String, pendingUpdate: Bool, budget: ChannelBudgetStatus?,
        face: ActivityFace? = nil
    ) {
        self.channel = channel
        self.app = app
        self.environment = environment
        self.status = status
        self.pendingUpdate = pendingUpdate
        self.budget = budget
        self.face = face
    }
}

/// An announcement a channel still owes (coalescing never drops one).
package struct PendingAlert: Codable, Sendable, Equatable {
    /// The APNs channel id.
    package var channel: String
    /// The `events.id` of the event that raised it.
    package var event: String
    /// The alert's title and body as the device would show them (a localized text as its key
    /// and arguments).
    package var text: String
    /// When it was queued (ingest).
    package var queuedAt: Date

    /// Creates a pending alert.
    package init(channel: String, event: String, text: String, queuedAt: Date) {
        self.channel = channel
        self.event = event
        self.text = text
        self.queuedAt = queuedAt
    }
}

/// One app's channels against the limit, for the live snapshot.
package struct AppChannelUsage: Codable, Sendable, Equatable {
    /// The app's bundle id.
    package var app: String
    /// `sandbox` or `production`.
    package var environment: String
    /// Its channels against the limit.
    package var channels: ChannelUsage

    /// Creates usage figures.
    package init(app: String, environment: String, channels: ChannelUsage) {
        self.app = app
        self.environment = environment
        self.channels = channels
    }
}
