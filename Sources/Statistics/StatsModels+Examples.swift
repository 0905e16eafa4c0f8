import DemoMatch
import Foundation

// Example responses for the statistics documentation and the dashboard test: fifteen minutes of the demo match
// (Northbridge United v Castleford City) as the poller would report it. The figures are made up
// but consistent: totals are the sums of the series, retries include the throttled sends, and
// the failures add up to the retried and failed attempts.

/// Example data shared by the example responses.
enum StatsExample {
    static let appID = "com.example.scores"
    static let end = Date(timeIntervalSince1970: 1_764_447_300)  // 2025-11-29T20:15:00Z
    static let start = end.addingTimeInterval(-15 * 60)
    static let hourStart = Date(timeIntervalSince1970: 1_764_446_400)  // 20:00Z
    static let channels = ["Q2hhbm5lbEE5Yk1zVjNoQnE=", "Z2FtZS1uYnUtY2ZjLWFsdA==", "c2NvcmVzLWxpdmUtMDE3Kw=="]

    /// Per-minute figures for 20:00 … 20:14, one value per minute in each array.
    struct Dataset {
        var accepted: [Int]
        var throttledSends: [Int]
        var otherRetries: [Int]
        var failed: [Int]
        var priority10: [Int]
        var coalesced: [Int]
        var downgraded: [Int]
        var eventsAccepted: [Int]
        var duplicates: [Int]

        func figures(_ index: Int) -> DeliveryFigures {
            let retried = throttledSends[index] + otherRetries[index]
            let total = accepted[index] + retried + failed[index]
            var reasons: [String: Int] = [:]
            if throttledSends[index] > 0 { reasons["TooManyRequests"] = throttledSends[index] }
            if otherRetries[index] > 0 { reasons["ServiceUnavailable"] = otherRetries[index] }
            if failed[index] > 0 { reasons["ChannelNotRegistered"] = failed[index] }
            let answered = total - otherRetries[index]
            return DeliveryFigures(
                events: EventCounts(accepted: eventsAccepted[index], duplicate: duplicates[index], stale: index == 9 ? 1 : 0, rejected: 0),
                sends: SendCounts(accepted: accepted[index], retried: retried, failed: failed[index], priority10: priority10[index], priority5: total - priority10[index]),
                failures: ReasonCount.sorted(reasons),
                coalesced: coalesced[index], downgraded: downgraded[index], retried: retried, throttled: throttledSends[index],
                latency: LatencyFigures(
                    ingestToSend: LatencyPercentiles(samples: total, p50Ms: p50[index], p95Ms: p95[index], p99Ms: p99[index]),
                    sendToAnswer: LatencyPercentiles(samples: answered, p50Ms: answerP50[index], p95Ms: answerP50[index] * 2.6, p99Ms: answerP50[index] * 4.1),
                    alertingIngestToSend: LatencyPercentiles(
                        samples: priority10[index], p50Ms: alertingP99[index] * 0.45, p95Ms: alertingP99[index] * 0.8, p99Ms: alertingP99[index])))
        }

        var series: [StatsBucket] {
            (0..<15).map { StatsBucket(start: start.addingTimeInterval(Double($0) * 60), figures: figures($0)) }
        }

        var totals: DeliveryFigures {
            let parts = series.map(\.figures)
            return DeliveryFigures.summing(parts, latency: LatencyFigures(
                ingestToSend: LatencyPercentiles(samples: parts.reduce(0) { $0 + $1.sends.total }, p50Ms: 6.9, p95Ms: 24.6, p99Ms: 51.2),
                sendToAnswer: LatencyPercentiles(samples: parts.reduce(0) { $0 + $1.latency.sendToAnswer.samples }, p50Ms: 3.0, p95Ms: 8.1, p99Ms: 14.0),
                alertingIngestToSend: LatencyPercentiles(samples: parts.reduce(0) { $0 + $1.sends.priority10 }, p50Ms: 4.2, p95Ms: 9.6, p99Ms: 13.1)))
        }
    }

    // Latency per minute (ms), shared by the datasets. The spikes are goals (20:06 and 20:12).
    static let p50 = [6.1, 6.4, 5.9, 6.8, 6.6, 6.2, 9.8, 8.7, 6.5, 6.3, 6.0, 6.1, 10.4, 7.2, 6.4]
    static let p95 = [14.2, 15.1, 13.8, 17.9, 16.3, 15.0, 31.5, 26.8, 16.1, 15.2, 14.6, 14.1, 34.2, 19.7, 15.3]
    static let p99 = [22.5, 24.8, 21.7, 29.4, 27.7, 23.9, 58.3, 47.1, 26.2, 24.4, 23.1, 22.0, 63.8, 33.5, 24.9]
    // Alerting updates only: sent at once, so no routine update held back by shaping.
    static let alertingP99 = [8.9, 9.4, 8.6, 10.2, 9.9, 9.1, 13.4, 12.2, 9.6, 9.2, 8.8, 8.7, 14.1, 10.8, 9.3]
    static let answerP50 = [2.8, 2.9, 2.7, 3.0, 3.1, 2.8, 3.6, 3.4, 2.9, 2.8, 2.8, 2.7, 3.8, 3.1, 2.9]

    /// Every app and channel together.
    static let overall = Dataset(
        accepted: [38, 41, 36, 52, 47, 44, 118, 96, 51, 45, 43, 40, 112, 61, 48],
        throttledSends: [0, 0, 0, 0, 1, 0, 4, 2, 0, 0, 0, 0, 3, 1, 0],
        otherRetries: [0, 1, 0, 0, 1, 0, 2, 1, 0, 0, 1, 0, 2, 0, 0],
        failed: [0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0],
        priority10: [6, 7, 5, 9, 8, 7, 31, 22, 8, 7, 6, 6, 24, 10, 7],
        coalesced: [2, 3, 1, 4, 2, 3, 17, 11, 3, 2, 2, 1, 15, 5, 2],
        downgraded: [0, 0, 0, 0, 0, 0, 4, 6, 0, 0, 0, 0, 9, 3, 0],
        eventsAccepted: [12, 14, 11, 16, 15, 13, 22, 19, 15, 14, 13, 12, 21, 17, 14],
        duplicates: [0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 0, 1, 1, 0, 0])

    /// The demo match's main channel: its 15 priority-10 sends are spent by 20:07, after which
    /// alerting updates go at priority 5 (13 downgrades).
    static let channel = Dataset(
        accepted: [3, 4, 3, 4, 4, 3, 5, 4, 4, 3, 3, 4, 5, 4, 3],
        throttledSends: [0, 0, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0],
        otherRetries: [0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0],
        failed: [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
        priority10: [2, 2, 1, 2, 2, 1, 3, 2, 0, 0, 0, 0, 0, 0, 0],
        coalesced: [0, 1, 0, 1, 0, 0, 3, 2, 0, 0, 1, 0, 3, 1, 0],
        downgraded: [0, 0, 0, 0, 0, 0, 0, 0, 2, 1, 1, 2, 4, 2, 1],
        eventsAccepted: [4, 4, 3, 5, 4, 4, 7, 6, 4, 4, 3, 4, 7, 5, 4],
        duplicates: [0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0])

    static let budgets: [ChannelBudgetStatus] = [
        ChannelBudgetStatus(channel: channels[0], app: appID, game: DemoFeed.gameID, hourStart: hourStart, priority10Used: 15, priority10Limit: 15, downgrades: 13, throttled: 2),
        ChannelBudgetStatus(channel: channels[1], app: appID, game: DemoFeed.gameID, hourStart: hourStart, priority10Used: 11, priority10Limit: 15, downgrades: 0, throttled: 0),
        ChannelBudgetStatus(channel: channels[2], app: appID, game: "demo-hfd-wlv", hourStart: hourStart, priority10Used: 4, priority10Limit: 15, downgrades: 0, throttled: 0),
    ]
}

extension StatsResponse {
    /// An example `GET /v1/stats?window=15m` response.
    package static let example = StatsResponse(
        window: .default, from: StatsExample.start, to: StatsExample.end,
        totals: StatsExample.overall.totals, series: StatsExample.overall.series)
}

extension LiveStatsResponse {
    /// An example `GET /v1/stats/live` response.
    package static let example = LiveStatsResponse(
        generatedAt: StatsExample.end.addingTimeInterval(-2),
        games: [
            LiveGame(
                game: DemoFeed.gameID, league: DemoFeed.league, home: DemoFeed.homeTeam, away: DemoFeed.awayTeam,
                homeScore: 2, awayScore: 2, period: "2H", clock: "67'", status: "live",
                lastEvent: "VAR check complete: the goal stands. Oliver Quinn was level with the last defender.",
                seq: 42, updatedAt: StatsExample.end.addingTimeInterval(-9), channels: 2,
                homeIdentity: LiveTeamIdentity(code: "NBU", primaryColour: "#C8102E", secondaryColour: "#FFFFFF"),
                awayIdentity: LiveTeamIdentity(code: "CFC", primaryColour: "#1D428A", secondaryColour: "#FFC72C")),
            LiveGame(
                game: "demo-hfd-wlv", league: DemoFeed.league, home: "Hartford Town", away: "Wolverley Rangers",
                homeScore: 0, awayScore: 1, period: "1H", clock: "31'", status: "live",
                lastEvent: "Yellow card: Sean Keating (Hartford Town) for a foul.", seq: 19,
                updatedAt: StatsExample.end.addingTimeInterval(-41), channels: 1),
            LiveGame(
                game: "demo-abm-sfd", league: DemoFeed.league, home: "Ashbourne Mill", away: "Stanford Dale",
                homeScore: 0, awayScore: 0, period: "1H", clock: "0'", status: "scheduled",
                lastEvent: "Ashbourne Mill v Stanford Dale is scheduled at Millfield.", seq: 1,
                updatedAt: StatsExample.end.addingTimeInterval(-600), channels: 1),
        ],
        budgets: ChannelBudgetStatus.closestToLimit(StatsExample.budgets),
        recentDeliveries: [
            RecentDelivery(at: StatsExample.end.addingTimeInterval(-8), app: StatsExample.appID, channel: StatsExample.channels[0], game: DemoFeed.gameID, priority: 5, downgraded: true, outcome: .accepted, status: 200, reason: nil, latencyMs: 3.2, attempt: 1, events: 2),
            RecentDelivery(at: StatsExample.end.addingTimeInterval(-8), app: StatsExample.appID, channel: StatsExample.channels[1], game: DemoFeed.gameID, priority: 10, downgraded: false, outcome: .accepted, status: 200, reason: nil, latencyMs: 2.9, attempt: 1, events: 2),
            RecentDelivery(at: StatsExample.end.addingTimeInterval(-23), app: StatsExample.appID, channel: StatsExample.channels[0], game: DemoFeed.gameID, priority: 10, downgraded: false, outcome: .retried, status: 429, reason: "TooManyRequests", latencyMs: 4.7, attempt: 1, events: 1),
            RecentDelivery(at: StatsExample.end.addingTimeInterval(-40), app: StatsExample.appID, channel: StatsExample.channels[2], game: "demo-hfd-wlv", priority: 10, downgraded: false, outcome: .accepted, status: 200, reason: nil, latencyMs: 3.5, attempt: 1, events: 1),
            RecentDelivery(at: StatsExample.end.addingTimeInterval(-55), app: StatsExample.appID, channel: StatsExample.channels[1], game: DemoFeed.gameID, priority: 5, downgraded: false, outcome: .accepted, status: 200, reason: nil, latencyMs: 2.6, attempt: 1, events: 1),
            RecentDelivery(at: StatsExample.end.addingTimeInterval(-71), app: StatsExample.appID, channel: "b2xkLWNoYW5uZWwtOTk=", game: nil, priority: 5, downgraded: false, outcome: .failed, status: 400, reason: "ChannelNotRegistered", latencyMs: 3.9, attempt: 1, events: 1),
            RecentDelivery(at: StatsExample.end.addingTimeInterval(-94), app: StatsExample.appID, channel: StatsExample.channels[0], game: DemoFeed.gameID, priority: 10, downgraded: false, outcome: .retried, status: nil, reason: "Timeout", latencyMs: nil, attempt: 2, events: 3),
        ],
        backlog: BacklogStatus(pending: 3, oldestPendingSeconds: 1.4, lastEventAt: StatsExample.end.addingTimeInterval(-8)),
        channelUsage: [
            AppChannelUsage(app: StatsExample.appID, environment: "production", channels: ChannelUsage(active: 9_214, retiring: 87)),
            AppChannelUsage(app: StatsExample.appID, environment: "sandbox", channels: ChannelUsage(active: 412, retiring: 3)),
        ])
}

extension GameLiveResponse {
    /// An example `GET /v1/games/{id}/live` response: the demo match.
    package static let example = GameLiveResponse(
        generatedAt: StatsExample.end.addingTimeInterval(-2),
        game: LiveStatsResponse.example.games[0],
        channels: [
            // The first channel's phones still show the penalty (the equaliser waits in its
            // outbox); the second's already show the equaliser.
            GameChannelStatus(
                channel: StatsExample.channels[0], app: StatsExample.appID, environment: "production", status: "active",
                pendingUpdate: true, budget: StatsExample.budgets[0],
                face: ActivityFace(
                    acceptedAt: StatsExample.end.addingTimeInterval(-800), event: "update", status: "live", homeScore: 1, awayScore: 2,
                    period: "2H", clock: "53'", lastPlay: "51' Dan Price · Price sends the keeper the wrong way",
                    homeScorers: ["Ravi Kapoor 12'"], awayScorers: ["Tom Hale 38'", "Dan Price 51' (pen)"], redCards: [0, 1],
                    alert: ShownAlert(
                        acceptedAt: StatsExample.end.addingTimeInterval(-800), title: "51' Penalty goal: Dan Price (Castleford City)",
                        body: "Northbridge United 1–2 Castleford City", sound: "default"))),
            GameChannelStatus(
                channel: StatsExample.channels[1], app: StatsExample.appID, environment: "production", status: "active",
                pendingUpdate: false, budget: StatsExample.budgets[1],
                face: ActivityFace(
                    acceptedAt: StatsExample.end.addingTimeInterval(-5), event: "update", status: "live", homeScore: 2, awayScore: 2,
                    period: "2H", clock: "67'", lastPlay: "66' Oliver Quinn · VAR check complete: the goal stands",
                    homeScorers: ["Ravi Kapoor 12'", "Oliver Quinn 66'"], awayScorers: ["Tom Hale 38'", "Dan Price 51' (pen)"],
                    redCards: [0, 1],
                    alert: ShownAlert(
                        acceptedAt: StatsExample.end.addingTimeInterval(-60), title: "66' Goal: Oliver Quinn (Northbridge United)",
                        body: "Northbridge United 2–2 Castleford City", sound: "default"))),
        ],
        recentDeliveries: LiveStatsResponse.example.recentDeliveries.filter { $0.game == DemoFeed.gameID },
        pendingAlerts: [
            PendingAlert(
                channel: StatsExample.channels[0], event: "1042", text: "GOAL! Northbridge United 2-2 — Oliver Quinn 66'",
                queuedAt: StatsExample.end.addingTimeInterval(-3)),
        ])
}

extension GameLiveResponse {
    /// An example `GET /v1/games/{id}/live` response for the demo match once it is over: its
    /// channel retiring, its phones showing the ended activity and the final whistle's alert.
    package static let finishedExample: GameLiveResponse = {
        var game = LiveStatsResponse.example.games[0]
        game.homeScore = 3
        game.period = "FT"
        game.clock = "90+4'"
        game.status = "final"
        game.lastEvent = "Full time at Northbridge Park."
        let finalWhistle = StatsExample.end.addingTimeInterval(-30)
        return GameLiveResponse(
            generatedAt: StatsExample.end.addingTimeInterval(-2), game: game,
            channels: [
                GameChannelStatus(
                    channel: StatsExample.channels[1], app: StatsExample.appID, environment: "production", status: "retiring",
                    pendingUpdate: false, budget: StatsExample.budgets[1],
                    face: ActivityFace(
                        acceptedAt: finalWhistle, event: "end", status: "final", homeScore: 3, awayScore: 2, period: "FT",
                        clock: "90+4'", lastPlay: "Full time at Northbridge Park.",
                        homeScorers: ["Ravi Kapoor 12'", "Oliver Quinn 66'", "Oliver Quinn 89'"],
                        awayScorers: ["Tom Hale 38'", "Dan Price 51' (pen)"], redCards: [0, 1],
                        alert: ShownAlert(
                            acceptedAt: finalWhistle, title: "Final: Northbridge United vs Castleford City",
                            body: "Northbridge United 3–2 Castleford City", sound: "default"))),
            ],
            recentDeliveries: [], pendingAlerts: [])
    }()
}

extension ChannelStatsResponse {
    /// An example `GET /v1/channels/{id}/stats?window=15m` response.
    package static let example = ChannelStatsResponse(
        channel: StatsExample.channels[0], app: StatsExample.appID, game: DemoFeed.gameID, status: "active",
        window: .default, from: StatsExample.start, to: StatsExample.end,
        totals: StatsExample.channel.totals, budget: StatsExample.budgets[0], series: StatsExample.channel.series)
}

extension GameStatsResponse {
    /// An example `GET /v1/games/{id}/stats?window=15m` response.
    package static let example = GameStatsResponse(
        game: DemoFeed.gameID, league: DemoFeed.league, status: "live",
        window: .default, from: StatsExample.start, to: StatsExample.end,
        totals: StatsExample.overall.totals, channels: Array(StatsExample.budgets.prefix(2)), series: StatsExample.overall.series)
}

extension AppStatsResponse {
    /// An example `GET /v1/apps/{bundle-id}/stats?window=15m` response.
    package static let example = AppStatsResponse(
        app: StatsExample.appID, environment: "sandbox",
        window: .default, from: StatsExample.start, to: StatsExample.end,
        channels: ChannelUsage(active: 9_214, retiring: 87),
        totals: StatsExample.overall.totals, budgets: ChannelBudgetStatus.closestToLimit(StatsExample.budgets))
}
