import Foundation
import Registry

/// `GET /v1/channels/{id}/stats?window=…`: one channel's figures and budget.
package struct ChannelStatsResponse: Codable, Sendable, Equatable {
    /// The APNs channel id.
    package var channel: String
    /// The bundle id of its app.
    package var app: String
    /// The game it carries, if any.
    package var game: String?
    /// `active`, `retiring`, `deleted` or `gone`.
    package var status: String
    /// The window asked for.
    package var window: StatsWindow
    /// Start of the window (inclusive).
    package var from: Date
    /// End of the window (exclusive).
    package var to: Date
    /// Figures over the window.
    package var totals: DeliveryFigures
    /// The current hour's priority-10 budget.
    package var budget: ChannelBudgetStatus
    /// Per-minute figures, oldest first.
    package var series: [StatsBucket]

    /// Creates a response.
    package init(channel: String, app: String, game: String?, status: String, window: StatsWindow, from: Date, to: Date, totals: DeliveryFigures, budget: ChannelBudgetStatus, series: [StatsBucket]) {
        self.channel = channel
        self.app = app
        self.game = game
        self.status = status
        self.window = window
        self.from = from
        self.to = to
        self.totals = totals
        self.budget = budget
        self.series = series
    }
}

/// `GET /v1/games/{id}/stats?window=…`: a game's figures over all its channels.
package struct GameStatsResponse: Codable, Sendable, Equatable {
    /// The game's external id (the feed's).
    package var game: String
    /// League or competition, if known.
    package var league: String?
    /// `scheduled`, `live` or `final`.
    package var status: String
    /// The window asked for.
    package var window: StatsWindow
    /// Start of the window (inclusive).
    package var from: Date
    /// End of the window (exclusive).
    package var to: Date
    /// Figures over the window, all channels together.
    package var totals: DeliveryFigures
    /// The budget of each channel bound to the game, closest to exhaustion first.
    package var channels: [ChannelBudgetStatus]
    /// Per-minute figures, oldest first.
    package var series: [StatsBucket]

    /// Creates a response.
    package init(game: String, league: String?, status: String, window: StatsWindow, from: Date, to: Date, totals: DeliveryFigures, channels: [ChannelBudgetStatus], series: [StatsBucket]) {
        self.game = game
        self.league = league
        self.status = status
        self.window = window
        self.from = from
        self.to = to
        self.totals = totals
        self.channels = channels
        self.series = series
    }
}

/// `GET /v1/apps/{bundle-id}/stats?window=…`: an app's channel usage against APNs' limit,
/// budgets and figures.
package struct AppStatsResponse: Codable, Sendable, Equatable {
    /// The app's bundle id.
    package var app: String
    /// `sandbox` or `production`.
    package var environment: String
    /// The window asked for.
    package var window: StatsWindow
    /// Start of the window (inclusive).
    package var from: Date
    /// End of the window (exclusive).
    package var to: Date
    /// Channels counting against the 10,000-per-app limit.
    package var channels: ChannelUsage
    /// Figures over the window.
    package var totals: DeliveryFigures
    /// Channel budgets in the current hour, closest to exhaustion first (at most 50).
    package var budgets: [ChannelBudgetStatus]

    /// Creates a response.
    package init(app: String, environment: String, window: StatsWindow, from: Date, to: Date, channels: ChannelUsage, totals: DeliveryFigures, budgets: [ChannelBudgetStatus]) {
        self.app = app
        self.environment = environment
        self.window = window
        self.from = from
        self.to = to
        self.channels = channels
        self.totals = totals
        self.budgets = budgets
    }
}

/// An app's channels against APNs' limit of 10,000 per app and environment.
package struct ChannelUsage: Codable, Sendable, Equatable {
    /// APNs' documented limit per app and environment.
    package static let apnsLimit = 10_000

    /// Channels that count against the limit (`active` + `retiring`).
    package var used: Int
    /// The limit (10,000).
    package var limit: Int
    /// Channels that may still be created.
    package var remaining: Int
    /// Channels in use.
    package var active: Int
    /// Channels of finished games waiting to be deleted at APNs.
    package var retiring: Int
    /// Whether `used` has reached the warning threshold (`ChannelLimit.warningFraction` of the limit by default: one threshold for warning and showing).
    package var nearLimit: Bool

    /// Creates usage figures; `used`, `remaining` and `nearLimit` are derived.
    package init(active: Int, retiring: Int, limit: Int = ChannelUsage.apnsLimit, warnAt fraction: Double = ChannelLimit.warningFraction) {
        self.active = active
        self.retiring = retiring
        self.used = active + retiring
        self.limit = limit
        self.remaining = max(0, limit - used)
        self.nearLimit = Double(used) >= Double(limit) * fraction
    }
}
