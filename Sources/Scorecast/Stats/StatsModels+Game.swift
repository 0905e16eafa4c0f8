import Foundation

/// `GET /v1/games/{id}/live`: what the dashboard's game view shows — the scoreboard, every
/// channel bound to the game with its budget, the game's latest deliveries and the
/// announcements its channels still owe.
public struct GameLiveResponse: Codable, Sendable, Equatable {
    /// When the snapshot was taken.
    public var generatedAt: Date
    /// The game and its scoreboard.
    public var game: LiveGame
    /// Every channel bound to the game, active ones first.
    public var channels: [GameChannelStatus]
    /// The latest delivery attempts to the game's channels, newest first (at most 25).
    public var recentDeliveries: [RecentDelivery]
    /// Alerts queued and not yet accepted by APNs, oldest first.
    public var pendingAlerts: [PendingAlert]

    /// Creates a snapshot.
    public init(generatedAt: Date, game: LiveGame, channels: [GameChannelStatus], recentDeliveries: [RecentDelivery], pendingAlerts: [PendingAlert]) {
        self.generatedAt = generatedAt
        self.game = game
        self.channels = channels
        self.recentDeliveries = recentDeliveries
        self.pendingAlerts = pendingAlerts
    }
}

/// One channel of a game.
public struct GameChannelStatus: Codable, Sendable, Equatable {
    /// The APNs channel id.
    public var channel: String
    /// The bundle id of its app.
    public var app: String
    /// `sandbox` or `production`.
    public var environment: String
    /// `active`, `retiring`, `deleted` or `gone`.
    public var status: String
    /// Whether an update waits in the outbox for it.
    public var pendingUpdate: Bool
    /// Its priority-10 budget in the current hour.
    public var budget: ChannelBudgetStatus?

    /// Creates a status.
    public init(channel: String, app: String, environment: String, status: String, pendingUpdate: Bool, budget: ChannelBudgetStatus?) {
        self.channel = channel
        self.app = app
        self.environment = environment
        self.status = status
        self.pendingUpdate = pendingUpdate
        self.budget = budget
    }
}

/// An announcement a channel still owes (coalescing never drops one).
public struct PendingAlert: Codable, Sendable, Equatable {
    /// The APNs channel id.
    public var channel: String
    /// The `events.id` of the event that raised it.
    public var event: String
    /// The alert's title and body as the device would show them (a localized text as its key
    /// and arguments).
    public var text: String
    /// When it was queued (ingest).
    public var queuedAt: Date

    /// Creates a pending alert.
    public init(channel: String, event: String, text: String, queuedAt: Date) {
        self.channel = channel
        self.event = event
        self.text = text
        self.queuedAt = queuedAt
    }
}

/// One app's channels against the limit, for the live snapshot.
public struct AppChannelUsage: Codable, Sendable, Equatable {
    /// The app's bundle id.
    public var app: String
    /// `sandbox` or `production`.
    public var environment: String
    /// Its channels against the limit.
    public var channels: ChannelUsage

    /// Creates usage figures.
    public init(app: String, environment: String, channels: ChannelUsage) {
        self.app = app
        self.environment = environment
        self.channels = channels
    }
}
