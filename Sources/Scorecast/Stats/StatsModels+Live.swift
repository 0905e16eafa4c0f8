import Foundation

/// `GET /v1/stats/live`: what the dashboard shows besides the charts — games in play, the
/// channels closest to their budget and the latest deliveries.
public struct LiveStatsResponse: Codable, Sendable, Equatable {
    /// When the snapshot was taken.
    public var generatedAt: Date
    /// Games scheduled to start soon, in play, or finished recently, in play first.
    public var games: [LiveGame]
    /// Channel budgets in the current hour, closest to exhaustion first (at most 10).
    public var budgets: [ChannelBudgetStatus]
    /// The latest delivery attempts, newest first (at most 25).
    public var recentDeliveries: [RecentDelivery]
    /// Apps whose sends are paused because APNs refused their credentials (empty when none).
    public var pausedApps: [PausedAppStatus]
    /// The outbox backlog and when the feed last sent an event.
    public var backlog: BacklogStatus?
    /// Every app's channels against the 10,000-per-app limit, most used first.
    public var channelUsage: [AppChannelUsage]

    /// Creates a snapshot.
    public init(
        generatedAt: Date, games: [LiveGame], budgets: [ChannelBudgetStatus], recentDeliveries: [RecentDelivery],
        pausedApps: [PausedAppStatus] = [], backlog: BacklogStatus? = nil, channelUsage: [AppChannelUsage] = []
    ) {
        self.generatedAt = generatedAt
        self.games = games
        self.budgets = budgets
        self.recentDeliveries = recentDeliveries
        self.pausedApps = pausedApps
        self.backlog = backlog
        self.channelUsage = channelUsage
    }
}

/// Updates waiting to be sent, and the feed's last word.
public struct BacklogStatus: Codable, Sendable, Equatable {
    /// Outbox rows pending (one per channel at most).
    public var pending: Int
    /// How long the oldest due row has waited, in seconds (0 when none is due).
    public var oldestPendingSeconds: Double
    /// When the newest stored feed event arrived, if any.
    public var lastEventAt: Date?

    /// Creates a status.
    public init(pending: Int, oldestPendingSeconds: Double, lastEventAt: Date?) {
        self.pending = pending
        self.oldestPendingSeconds = oldestPendingSeconds
        self.lastEventAt = lastEventAt
    }
}

/// An app whose sends wait until an admin resumes it (`scorecast apps resume`).
public struct PausedAppStatus: Codable, Sendable, Equatable {
    /// The app's bundle id.
    public var app: String
    /// `sandbox` or `production`.
    public var environment: String
    /// Why: what APNs answered (e.g. `InvalidProviderToken`).
    public var reason: String
    /// When the pause began.
    public var since: Date
    /// Updates waiting in the outbox for its channels.
    public var waitingUpdates: Int

    /// Creates a status.
    public init(app: String, environment: String, reason: String, since: Date, waitingUpdates: Int) {
        self.app = app
        self.environment = environment
        self.reason = reason
        self.since = since
        self.waitingUpdates = waitingUpdates
    }
}

/// A game and its current scoreboard.
public struct LiveGame: Codable, Sendable, Equatable {
    /// The game's external id (the feed's).
    public var game: String
    /// League or competition.
    public var league: String
    /// Home team name.
    public var home: String
    /// Away team name.
    public var away: String
    /// Home score.
    public var homeScore: Int
    /// Away score.
    public var awayScore: Int
    /// Period as the feed names it, e.g. `1H`, `HT`, `2H`, `FT`.
    public var period: String
    /// Game clock as the feed shows it, e.g. `67'`.
    public var clock: String
    /// `scheduled`, `live` or `final`.
    public var status: String
    /// Description of the latest applied event, if any.
    public var lastEvent: String?
    /// The game's applied event `seq`.
    public var seq: Int
    /// When the latest event was applied.
    public var updatedAt: Date
    /// How many channels carry the game.
    public var channels: Int

    /// Creates a game summary.
    public init(game: String, league: String, home: String, away: String, homeScore: Int, awayScore: Int, period: String, clock: String, status: String, lastEvent: String?, seq: Int, updatedAt: Date, channels: Int) {
        self.game = game
        self.league = league
        self.home = home
        self.away = away
        self.homeScore = homeScore
        self.awayScore = awayScore
        self.period = period
        self.clock = clock
        self.status = status
        self.lastEvent = lastEvent
        self.seq = seq
        self.updatedAt = updatedAt
        self.channels = channels
    }
}

/// One delivery attempt, as the dashboard lists it.
public struct RecentDelivery: Codable, Sendable, Equatable {
    /// When APNs answered (or the attempt failed).
    public var at: Date
    /// The bundle id of the channel's app.
    public var app: String
    /// The APNs channel id.
    public var channel: String
    /// The game the update was about, if any.
    public var game: String?
    /// `apns-priority` sent: 10 or 5 (1 is possible but unconfirmed for Live Activities).
    public var priority: Int
    /// Whether the update wanted priority 10 and went at 5 because the budget was spent.
    public var downgraded: Bool
    /// What came of it.
    public var outcome: SendMetricOutcome
    /// HTTP status APNs answered; absent when no answer came (timeout, reset).
    public var status: Int?
    /// APNs reason or transport failure; absent on success.
    public var reason: String?
    /// From send to answer, in milliseconds; absent when no answer came.
    public var latencyMs: Double?
    /// Attempt number, from 1.
    public var attempt: Int
    /// How many feed events this one broadcast carried (more than 1 when updates were coalesced).
    public var events: Int

    /// Creates a delivery row.
    public init(at: Date, app: String, channel: String, game: String?, priority: Int, downgraded: Bool, outcome: SendMetricOutcome, status: Int?, reason: String?, latencyMs: Double?, attempt: Int, events: Int) {
        self.at = at
        self.app = app
        self.channel = channel
        self.game = game
        self.priority = priority
        self.downgraded = downgraded
        self.outcome = outcome
        self.status = status
        self.reason = reason
        self.latencyMs = latencyMs
        self.attempt = attempt
        self.events = events
    }
}
