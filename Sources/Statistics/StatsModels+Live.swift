import Foundation
import ServiceBase

/// `GET /v1/stats/live`: what the dashboard shows besides the charts — games in play, the
/// channels closest to their budget and the latest deliveries.
package struct LiveStatsResponse: Codable, Sendable, Equatable {
    /// When the snapshot was taken.
    package var generatedAt: Date
    /// Games scheduled to start soon, in play, or finished recently, in play first.
    package var games: [LiveGame]
    /// Channel budgets in the current hour, closest to exhaustion first (at most 10).
    package var budgets: [ChannelBudgetStatus]
    /// The latest delivery attempts, newest first (at most 25).
    package var recentDeliveries: [RecentDelivery]
    /// Apps whose sends are paused because APNs refused their credentials (empty when none).
    package var pausedApps: [PausedAppStatus]
    /// The outbox backlog and when the feed last sent an event.
    package var backlog: BacklogStatus?
    /// Every app's channels against the 10,000-per-app limit, most used first.
    package var channelUsage: [AppChannelUsage]

    /// Creates a snapshot.
    package init(
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
package struct BacklogStatus: Codable, Sendable, Equatable {
    /// Outbox rows pending (one per channel at most).
    package var pending: Int
    /// How long the oldest due row has waited, in seconds (0 when none is due).
    package var oldestPendingSeconds: Double
    /// When the newest stored feed event arrived, if any.
    package var lastEventAt: Date?

    /// Creates a status.
    package init(pending: Int, oldestPendingSeconds: Double, lastEventAt: Date?) {
        self.pending = pending
        self.oldestPendingSeconds = oldestPendingSeconds
        self.lastEventAt = lastEventAt
    }
}

/// An app whose sends wait until an admin resumes it (`scorecast apps resume`).
package struct PausedAppStatus: Codable, Sendable, Equatable {
    /// The app's bundle id.
    package var app: String
    /// `sandbox` or `production`.
    package var environment: String
    /// Why: what APNs answered (e.g. `InvalidProviderToken`).
    package var reason: String
    /// When the pause began.
    package var since: Date
    /// Updates waiting in the outbox for its channels.
    package var waitingUpdates: Int

    /// Creates a status.
    package init(app: String, environment: String, reason: String, since: Date, waitingUpdates: Int) {
        self.app = app
        self.environment = environment
        self.reason = reason
        self.since = since
        self.waitingUpdates = waitingUpdates
    }
}

/// A game and its current scoreboard.
package struct LiveGame: Codable, Sendable, Equatable {
    /// The game's external id (the feed's).
    package var game: String
    /// League or competition.
    package var league: String
    /// Home team name.
    package var home: String
    /// Away team name.
    package var away: String
    /// Home score.
    package var homeScore: Int
    /// Away score.
    package var awayScore: Int
    /// Period as the feed names it, e.g. `1H`, `HT`, `2H`, `FT`.
    package var period: String
    /// Game clock as the feed shows it, e.g. `67'`.
    package var clock: String
    /// `scheduled`, `live` or `final`.
    package var status: String
    /// Description of the latest applied event, if any.
    package var lastEvent: String?
    /// The game's applied event `seq`.
    package var seq: Int
    /// When the latest event was applied.
    package var updatedAt: Date
    /// How many channels carry the game.
    package var channels: Int
    /// The home team's code and colours as its Live Activities show them (registered, else the
    /// feed's, else fallen back); `nil` in a snapshot that does not carry them.
    package var homeIdentity: LiveTeamIdentity?
    /// The away team's code and colours.
    package var awayIdentity: LiveTeamIdentity?

    /// Creates a game summary.
    package init(
        game: String, league: String, home: String, away: String, homeScore: Int, awayScore: Int, period: String, clock: String, status: String,
        lastEvent: String?, seq: Int, updatedAt: Date, channels: Int, homeIdentity: LiveTeamIdentity? = nil, awayIdentity: LiveTeamIdentity? = nil
    ) {
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
        self.homeIdentity = homeIdentity
        self.awayIdentity = awayIdentity
    }
}

/// A team's code and colours as the dashboard draws them on a Live Activity.
package struct LiveTeamIdentity: Codable, Sendable, Equatable {
    /// The 3-letter code of the Dynamic Island's compact view.
    package var code: String
    /// The primary colour, `#RRGGBB`.
    package var primaryColour: String
    /// The secondary colour, `#RRGGBB` (text on the primary).
    package var secondaryColour: String

    /// Creates an identity.
    package init(code: String, primaryColour: String, secondaryColour: String) {
        self.code = code
        self.primaryColour = primaryColour
        self.secondaryColour = secondaryColour
    }
}

/// One delivery attempt, as the dashboard lists it.
package struct RecentDelivery: Codable, Sendable, Equatable {
    /// When APNs answered (or the attempt failed).
    package var at: Date
    /// The bundle id of the channel's app.
    package var app: String
    /// The APNs channel id.
    package var channel: String
    /// The game the update was about, if any.
    package var game: String?
    /// `apns-priority` sent: 10 or 5 (1 is possible but unconfirmed for Live Activities).
    package var priority: Int
    /// Whether the update wanted priority 10 and went at 5 because the budget was spent.
    package var downgraded: Bool
    /// What came of it.
    package var outcome: SendMetricOutcome
    /// HTTP status APNs answered; absent when no answer came (timeout, reset).
    package var status: Int?
    /// APNs reason or transport failure; absent on success.
    package var reason: String?
    /// From send to answer, in milliseconds; absent when no answer came.
    package var latencyMs: Double?
    /// Attempt number, from 1.
    package var attempt: Int
    /// How many feed events this one broadcast carried (more than 1 when updates were coalesced).
    package var events: Int

    /// Creates a delivery row.
    package init(at: Date, app: String, channel: String, game: String?, priority: Int, downgraded: Bool, outcome: SendMetricOutcome, status: Int?, reason: String?, latencyMs: Double?, attempt: Int, events: Int) {
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
