import Foundation
import LeasedQueue
import Postgres
import Registry
import ScorecastCore
import ServiceBase

extension StatsQuery {
    /// Games the live snapshot lists: in play, starting within this long, or ended this long ago.
    static let liveGameHorizon: TimeInterval = 3 * 3600

    /// `GET /v1/stats/live`: games in play (and about to start or just finished), the 10
    /// channel budgets closest to exhaustion this hour, the 25 latest delivery attempts and
    /// every app's channels against the limit.
    package func live(now: Date) async throws -> LiveStatsResponse {
        let gameRows = try await pool.query("""
            SELECT \(unsafeSQL: GameRecord.columns), finished_at, updated_at,
                   (SELECT count(*) FROM channel_bindings b JOIN channels c ON c.id = b.channel_id
                    WHERE b.game_id = games.id AND c.status IN ('active', 'retiring'))::int AS live_channels
            FROM games
            WHERE status IN ('live', 'suspended')
               OR (status = 'scheduled' AND starts_at BETWEEN \(now.addingTimeInterval(-Self.liveGameHorizon)) AND \(now.addingTimeInterval(Self.liveGameHorizon)))
               OR (status IN ('final', 'cancelled') AND coalesce(finished_at, updated_at) >= \(now.addingTimeInterval(-Self.liveGameHorizon)))
            ORDER BY CASE WHEN status IN ('live', 'suspended') THEN 0 WHEN status = 'scheduled' THEN 1 ELSE 2 END,
                     coalesce(last_event_at, starts_at, created_at) DESC, id
            LIMIT 20
            """)
        let games = try gameRows.map { row in
            Self.liveGame(try GameRecord(row: row), channels: try row.decode("live_channels"), updatedAt: try row.decode("updated_at"))
        }
        let hotBudgets = try await budgets.budgets(.activeThisHour(appID: nil), now: now, limit: 10)
        return LiveStatsResponse(
            generatedAt: now, games: games, budgets: hotBudgets, recentDeliveries: try await recentDeliveries(channelIDs: nil),
            pausedApps: try await pausedApps(), backlog: try await backlog(now: now), channelUsage: try await channelUsage())
    }

    /// The outbox backlog at `now` (same definitions as the `/metrics` gauges) and the newest
    /// event's arrival.
    package func backlog(now: Date) async throws -> BacklogStatus? {
        guard let row = try await pool.query("""
            SELECT (SELECT count(*) FROM outbox)::int AS pending, \(Self.oldestWaiting(at: now)) AS oldest,
                   (SELECT max(received_at) FROM events) AS last_event
            """).first else { return nil }
        return BacklogStatus(
            pending: try row.decode("pending"), oldestPendingSeconds: max(0, try row.decode("oldest", as: Double.self)),
            lastEventAt: try row.decode("last_event", as: Date?.self))
    }

    /// Seconds the oldest outbox row that a worker could claim at `now` has waited since it fell
    /// due (0 when none waits): the backlog figure `/v1/stats` and the `/metrics` gauge share.
    static func oldestWaiting(at now: Date) -> SQL {
        """
        (SELECT coalesce(EXTRACT(EPOCH FROM \(now)::timestamptz - min(greatest(o.due_at, coalesce(o.not_before, o.due_at)))), 0)::float8
         FROM outbox o
         WHERE o.due_at <= \(now) AND (o.not_before IS NULL OR o.not_before <= \(now)) AND \(LeasedQueue.outbox.isFree(at: now)))
        """
    }

    /// Apps paused because APNs refused their credentials, longest paused first, with the
    /// updates waiting for them (also what `/readyz` reports).
    package func pausedApps() async throws -> [PausedAppStatus] {
        try await pool.query("""
            SELECT a.bundle_id, a.environment, coalesce(a.paused_reason, '') AS reason, a.paused_at,
                   (SELECT count(*) FROM outbox o JOIN channels c ON c.id = o.channel_id WHERE c.app_id = a.id)::int AS waiting
            FROM apps a
            WHERE a.paused_at IS NOT NULL
            ORDER BY a.paused_at, a.bundle_id, a.environment
            """).map { row in
            PausedAppStatus(
                app: try row.decode("bundle_id"), environment: try row.decode("environment"), reason: try row.decode("reason"),
                since: try row.decode("paused_at"), waitingUpdates: try row.decode("waiting"))
        }
    }

    /// The dashboard's view of a game. Pure.
    static func liveGame(_ game: GameRecord, channels: Int, updatedAt: Date) -> LiveGame {
        let state = game.state
        let last = state?.lastEvent
        return LiveGame(
            game: game.id, league: game.league, home: game.homeTeam, away: game.awayTeam,
            homeScore: state?.homeScore ?? 0, awayScore: state?.awayScore ?? 0,
            period: state?.period ?? "", clock: state?.clock ?? "", status: game.status,
            lastEvent: last.map { $0.description ?? $0.kind.rawValue }, seq: Int(game.appliedSeq),
            updatedAt: game.lastEventAt ?? updatedAt, channels: channels,
            homeIdentity: liveIdentity(game, .home), awayIdentity: liveIdentity(game, .away))
    }

    /// The code and colours of `game`'s team on `side` (``GameRecord/team(_:)``). Pure.
    static func liveIdentity(_ game: GameRecord, _ side: TeamSide) -> LiveTeamIdentity {
        let team = game.team(side)
        return LiveTeamIdentity(code: team.code, primaryColour: team.primary, secondaryColour: team.secondary)
    }

    /// The API's outcome of a `deliveries.outcome`: `sent` is accepted, `retry` retried, and
    /// `failed`, `gone`, `paused` failed. Pure.
    static func outcome(_ stored: String) -> SendMetricOutcome {
        switch stored {
        case "sent": .accepted
        case "retry": .retried
        default: .failed
        }
    }
}
