import APNsCore
import DeliveryEngine
import Foundation
import Postgres
import Registry
import ScorecastCore
import ServiceBase

/// The statistics API's reads: delivery figures over a window (all apps, one app, one game,
/// one channel), budgets and channel usage, and the live snapshot for the dashboard. Used by
/// `StatsEndpoints` and `scorecast stats`; every answer is one of the `StatsModels` responses.
///
/// Figures come from `FiguresReader` (roll-ups for settled minutes, `deliveries` live for the
/// rest). Duplicate and rejected feed events are known only in total, so the app, game and
/// channel answers count accepted and stale events only.
package struct StatsQuery: Sendable {
    let pool: PostgresPool
    let figures: FiguresReader
    let budgets: BudgetReader
    /// Channels per app and environment (`SCORECAST_CHANNEL_LIMIT`).
    let channelLimit: Int

    /// Creates the reads on `pool` with the budget profiles and channel limit of `configuration`.
    package init(pool: PostgresPool, configuration: Configuration) {
        self.init(pool: pool, budgetProfiles: configuration.budgetProfiles, channelLimit: configuration.channelLimit)
    }

    /// Creates the reads with explicit budget profiles and channel limit.
    package init(pool: PostgresPool, budgetProfiles: BudgetProfiles, channelLimit: Int) {
        self.pool = pool
        self.figures = FiguresReader(pool: pool)
        self.budgets = BudgetReader(pool: pool, profiles: budgetProfiles)
        self.channelLimit = channelLimit
    }

    /// `GET /v1/stats`: every app's figures over `window` ending with the minute of `now`.
    package func overview(window: StatsWindow, now: Date) async throws -> StatsResponse {
        let span = StatsSpan(window: window, now: now)
        let (totals, series) = try await figures.read(.all, span: span)
        let refusals = try await IngestTally(pool: pool).refusals(from: span.from, to: span.to)
        return StatsResponse(
            window: window, from: span.from, to: span.to, bucketSeconds: span.bucketSeconds, totals: totals, series: series,
            refusals: refusals)
    }

    /// `GET /v1/channels/{id}/stats`: `id` is the registry id (digits) or the APNs channel id.
    /// `nil` when there is no such channel.
    package func channel(_ id: String, window: StatsWindow, now: Date) async throws -> ChannelStatsResponse? {
        var rows: [PostgresRow] = []
        if let number = Int64(id) {
            rows = try await pool.query("SELECT c.id, c.apns_channel_id, c.status, a.bundle_id FROM channels c JOIN apps a ON a.id = c.app_id WHERE c.id = \(number)")
        }
        if rows.isEmpty {
            rows = try await pool.query("""
                SELECT c.id, c.apns_channel_id, c.status, a.bundle_id FROM channels c JOIN apps a ON a.id = c.app_id
                WHERE c.apns_channel_id = \(id) ORDER BY (c.status IN ('active', 'retiring')) DESC, c.id DESC LIMIT 1
                """)
        }
        guard let row = rows.first else { return nil }
        let channelID: Int64 = try row.decode("id")
        let games = try await pool.query("SELECT game_id FROM channel_bindings WHERE channel_id = \(channelID) ORDER BY game_id")
            .map { try $0.decode("game_id", as: String.self) }
        let span = StatsSpan(window: window, now: now)
        let (totals, series) = try await figures.read(.channels([channelID], games: games), span: span)
        guard let budget = try await budgets.budgets(.channels([channelID]), now: now, limit: 1).first else { return nil }
        return ChannelStatsResponse(
            channel: try row.decode("apns_channel_id"), app: try row.decode("bundle_id"), game: games.first,
            status: try row.decode("status"), window: window, from: span.from, to: span.to,
            totals: totals, budget: budget, series: series)
    }

    /// `GET /v1/games/{id}/stats`: the figures of every channel bound to the game. `nil` when
    /// there is no such game.
    package func game(_ id: String, window: StatsWindow, now: Date) async throws -> GameStatsResponse? {
        guard let game = try await pool.query("SELECT league, status FROM games WHERE id = \(id)").first else { return nil }
        let channelIDs = try await pool.query("SELECT channel_id FROM channel_bindings WHERE game_id = \(id) ORDER BY channel_id")
            .map { try $0.decode("channel_id", as: Int64.self) }
        let span = StatsSpan(window: window, now: now)
        let (totals, series) = try await figures.read(.channels(channelIDs, games: [id]), span: span)
        let channelBudgets = try await budgets.budgets(.channels(channelIDs), now: now, limit: channelIDs.count)
        let league: String = try game.decode("league")
        return GameStatsResponse(
            game: id, league: league.isEmpty ? nil : league, status: try game.decode("status"), window: window,
            from: span.from, to: span.to, totals: totals, channels: channelBudgets, series: series)
    }

    /// `GET /v1/apps/{bundle-id}/stats`: channel usage against the limit, the budgets closest to
    /// exhaustion (at most 50) and the app's figures. `nil` when there is no such app.
    /// - Throws: `RegistryError(.invalidInput)` when the bundle id has apps in both
    ///   environments and `environment` is nil.
    package func app(bundleID: String, environment: APNsEnvironment?, window: StatsWindow, now: Date) async throws -> AppStatsResponse? {
        let app: AppRecord
        do {
            app = try await AppStore(pool: pool).resolve(bundleID: bundleID, environment: environment)
        } catch let error as RegistryError where error.code == .notFound {
            return nil
        }
        let usage = try await pool.query("""
            SELECT count(*) FILTER (WHERE status = 'active')::int AS active, count(*) FILTER (WHERE status = 'retiring')::int AS retiring
            FROM channels WHERE app_id = \(app.id)
            """)
        let span = StatsSpan(window: window, now: now)
        let (totals, _) = try await figures.read(.app(app.id), span: span)
        let appBudgets = try await budgets.budgets(.activeThisHour(appID: app.id), now: now, limit: 50)
        return AppStatsResponse(
            app: app.bundleID, environment: app.environment.rawValue, window: window, from: span.from, to: span.to,
            channels: ChannelUsage(
                active: try usage.first?.decode("active", as: Int.self) ?? 0,
                retiring: try usage.first?.decode("retiring", as: Int.self) ?? 0,
                limit: channelLimit, warnAt: ChannelLimit.warningFraction),
            totals: totals, budgets: appBudgets)
    }
}
