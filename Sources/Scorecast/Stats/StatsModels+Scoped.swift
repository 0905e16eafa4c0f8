import Foundation

/// `GET /v1/channels/{id}/stats?window=…`: one channel's figures and budget.
public struct ChannelStatsResponse: Codable, Sendable, Equatable {
    /// The APNs channel id.
    public var channel: String
    /// The bundle id of its app.
    public var app: String
    /// The game it carries, if any.
    public var game: String?
    /// `active`, `retiring`, `deleted` or `gone`.
    public var status: String
    /// The window asked for.
    public var window: StatsWindow
    /// Start of the window (inclusive).
    public var from: Date
    /// End of the window (exclusive).
    public var to: Date
    /// Figures over the window.
    public var totals: DeliveryFigures
    /// The current hour's priority-10 budget.
    public var budget: ChannelBudgetStatus
    /// Per-minute figures, oldest first.
    public var series: [StatsBucket]

    /// Creates a response.
    public init(channel: String, app: String, game: String?, status: String, window: StatsWindow, from: Date, to: Date, totals: DeliveryFigures, budget: ChannelBudgetStatus, series: [StatsBucket]) {
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
public struct GameStatsResponse: Codable, Sendable, Equatable {
    /// The game's external id (the feed's).
    public var game: String
    /// League or competition, if known.
    public var league: String?
    /// `scheduled`, `live` or `final`.
    public var status: String
    /// The window asked for.
    public var window: StatsWindow
    /// Start of the window (inclusive).
    public var from: Date
    /// End of the window (exclusive).
    public var to: Date
    /// Figures over the window, all channels together.
    public var totals: DeliveryFigures
    /// The budget of each channel bound to the game, closest to exhaustion first.
    public var channels: [ChannelBudgetStatus]
    /// Per-minute figures, oldest first.
    public var series: [StatsBucket]

    /// Creates a response.
    public init(game: String, league: String?, status: String, window: StatsWindow, from: Date, to: Date, totals: DeliveryFigures, channels: [ChannelBudgetStatus], series: [StatsBucket]) {
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
public struct AppStatsResponse: Codable, Sendable, Equatable {
    /// The app's bundle id.
    public var app: String
    /// `sandbox` or `production`.
    public var environment: String
    /// The window asked for.
    public var window: StatsWindow
    /// Start of the window (inclusive).
    public var from: Date
    /// End of the window (exclusive).
    public var to: Date
    /// Channels counting against the 10,000-per-app limit.
    public var channels: ChannelUsage
    /// Figures over the window.
    public var totals: DeliveryFigures
    /// Channel budgets in the current hour, closest to exhaustion first (at most 50).
    public var budgets: [ChannelBudgetStatus]

    /// Creates a response.
    public init(app: String, environment: String, window: StatsWindow, from: Date, to: Date, channels: ChannelUsage, totals: DeliveryFigures, budgets: [ChannelBudgetStatus]) {
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
public struct ChannelUsage: Codable, Sendable, Equatable {
    /// APNs' documented limit per app and environment.
    public static let apnsLimit = 10_000

    /// Channels that count against the limit (`active` + `retiring`).
    public var used: Int
    /// The limit (10,000).
    public var limit: Int
    /// Channels that may still be created.
    public var remaining: Int
    /// Channels in use.
    public var active: Int
    /// Channels of finished games waiting to be deleted at APNs.
    public var retiring: Int
    /// Whether `used` has reached the warning threshold (`ChannelLimit.warningFraction` of the limit by default: one threshold for warning and showing).
    public var nearLimit: Bool

    /// Creates usage figures; `used`, `remaining` and `nearLimit` are derived.
    public init(active: Int, retiring: Int, limit: Int = ChannelUsage.apnsLimit, warnAt fraction: Double = ChannelLimit.warningFraction) {
        self.active = active
        self.retiring = retiring
        self.used = active + retiring
        self.limit = limit
        self.remaining = max(0, limit - used)
        self.nearLimit = Double(used) >= Double(limit) * fraction
    }
}
