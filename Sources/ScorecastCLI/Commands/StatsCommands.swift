import Foundation
import Lifecycle
import Postgres
import Statistics

/// `scorecast stats [--window 15m] [--watch] [--json]`: delivery figures in the terminal,
/// read from the database directly (the same figures as `GET /v1/stats`).
enum StatsCommands {
    /// How often `--watch` refreshes.
    static let watchInterval: Duration = .seconds(2)

    static let all: [CommandDefinition] = [
        CommandDefinition(
            ["stats"], summary: "Delivery figures: sends by outcome, failures by reason, coalesced, downgraded, latency",
            options: [
                .value("window", "WINDOW", "how far back: 15m (default), 1h, 24h, 7d…"),
                .flag("watch", "refresh every 2 seconds until Ctrl-C, riding out database restarts"),
                .flag("json", "print the /v1/stats JSON instead of a table"),
            ],
            details: """
                Reads the database directly (SCORECAST_DATABASE_URL, or the embedded cluster of the
                state folder), so it works whether or not the server runs. The figures are those of
                GET /v1/stats: minutes the poller has settled come from its roll-ups, the rest live
                from the deliveries table.
                """
        ) { arguments, context in
            let window: StatsWindow
            do throws(StatsWindowError) {
                window = try StatsWindow(parsing: arguments.value("window") ?? StatsWindow.default.description)
            } catch {
                throw CommandError.usage("--window: \(error.description)")
            }
            let configuration = try context.configuration()
            let logger = context.logger("stats", configuration)
            try await context.withDatabase(configuration, logger: logger) { database in
                let query = StatsQuery(pool: database.pool, configuration: configuration)
                let json = arguments.flag("json")
                guard arguments.flag("watch") else {
                    try show(try await read(query, window: window, json: json), json: json, context: context)
                    return
                }
                let signals = SignalWatcher(signals: [SIGINT, SIGTERM])
                defer { signals.cancel() }
                let stop = signals.triggered
                let clearScreen = isatty(1) == 1 && !json
                var watch = StatsWatch()
                while !stop.isTriggered {
                    do {
                        let view = try await read(query, window: window, json: json)
                        if clearScreen { context.terminal.print("\u{1B}[H\u{1B}[2J") }
                        try show(view, json: json, context: context)
                        if let note = watch.succeeded(at: Date()) { context.terminal.error(note) }
                    } catch let error as PostgresError where StatsWatch.isDatabaseAway(error) {
                        context.terminal.error(watch.failed(error, at: Date()))
                    }
                    let until = ContinuousClock.now + watchInterval
                    while !stop.isTriggered && ContinuousClock.now < until {
                        try? await Task.sleep(for: .milliseconds(100))
                    }
                }
            }
        }
    ]

    /// What one round shows: the figures, and (for the table) the backlog and the paused apps.
    struct View: Sendable {
        var figures: StatsResponse
        var backlog: BacklogStatus?
        var paused: [PausedAppStatus]
    }

    static func read(_ query: StatsQuery, window: StatsWindow, json: Bool) async throws -> View {
        let now = Date()
        let figures = try await query.overview(window: window, now: now)
        // The JSON is /v1/stats' answer, nothing added.
        guard !json else { return View(figures: figures, backlog: nil, paused: []) }
        return View(figures: figures, backlog: try await query.backlog(now: now), paused: try await query.pausedApps())
    }

    static func show(_ view: View, json: Bool, context: CommandContext) throws {
        if json {
            try context.terminal.json(view.figures)
        } else {
            context.terminal.print(render(view.figures) + render(backlog: view.backlog, paused: view.paused))
        }
    }

    /// The backlog and the paused apps, below the figures. Pure.
    static func render(backlog: BacklogStatus?, paused: [PausedAppStatus]) -> String {
        var lines: [String] = []
        if let backlog {
            lines.append("backlog: \(backlog.pending) update(s) pending, the oldest due one waited \(Int(backlog.oldestPendingSeconds.rounded())) s")
        }
        if paused.isEmpty {
            lines.append("paused apps: none")
        } else {
            var table = TextTable(["paused app", "env", "reason", "waiting updates"])
            for app in paused { table.add([app.app, app.environment, app.reason, String(app.waitingUpdates)]) }
            lines.append(table.render() + "resume with `scorecast apps resume BUNDLE` once the key is fixed")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The human summary of a response. Pure.
    static func render(_ answer: StatsResponse) -> String {
        let totals = answer.totals
        let time = DateFormatter()
        time.locale = Locale(identifier: "en_US_POSIX")
        time.timeZone = TimeZone(identifier: "UTC")
        time.dateFormat = "yyyy-MM-dd HH:mm"
        var lines = ["scorecast stats: last \(answer.window) (\(time.string(from: answer.from)) to \(time.string(from: answer.to)) UTC)", ""]
        var table = TextTable(["figure", "count", "detail"])
        let sends = totals.sends
        table.add(["sends", String(sends.total), "accepted \(sends.accepted), retried \(sends.retried), failed \(sends.failed)"])
        table.add(["priority", "", "10: \(sends.priority10), 5: \(sends.priority5)"])
        table.add(["coalesced", String(totals.coalesced), "updates replaced by a newer one before sending"])
        table.add(["downgraded", String(totals.downgraded), "alerting updates sent at 5: budget spent"])
        table.add(["retried", String(totals.retried), "queued again (retryable failure or expired lease)"])
        table.add(["throttled", String(totals.throttled), "429 TooManyRequests"])
        let events = totals.events
        table.add([
            "events", String(events.accepted + events.duplicate + events.stale + events.rejected),
            "accepted \(events.accepted), duplicate \(events.duplicate), stale \(events.stale), rejected \(events.rejected)",
        ])
        table.add(["ingest→send", String(totals.latency.ingestToSend.samples), latency(totals.latency.ingestToSend)])
        table.add(["send→answer", String(totals.latency.sendToAnswer.samples), latency(totals.latency.sendToAnswer)])
        lines.append(table.render())
        if totals.failures.isEmpty {
            lines.append("no failed attempts")
        } else {
            var failures = TextTable(["failure reason", "attempts"])
            for failure in totals.failures { failures.add([failure.reason, String(failure.count)]) }
            lines.append(failures.render())
        }
        return lines.joined(separator: "\n") + "\n"
    }

    static func latency(_ value: LatencyPercentiles) -> String {
        guard value.samples > 0 else { return "no samples" }
        func ms(_ number: Double?) -> String { number.map { String(format: "%.1f ms", $0) } ?? "-" }
        return "p50 \(ms(value.p50Ms)), p95 \(ms(value.p95Ms)), p99 \(ms(value.p99Ms))"
    }
}
