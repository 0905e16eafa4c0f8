import Foundation
import Lifecycle
import Scorecast

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
                .flag("watch", "refresh every 2 seconds until Ctrl-C"),
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
                guard arguments.flag("watch") else {
                    try show(try await query.overview(window: window, now: Date()), json: arguments.flag("json"), context: context)
                    return
                }
                let signals = SignalWatcher(signals: [SIGINT, SIGTERM])
                defer { signals.cancel() }
                let stop = signals.triggered
                let clearScreen = isatty(1) == 1 && !arguments.flag("json")
                while !stop.isTriggered {
                    let answer = try await query.overview(window: window, now: Date())
                    if clearScreen { context.terminal.print("\u{1B}[H\u{1B}[2J") }
                    try show(answer, json: arguments.flag("json"), context: context)
                    let until = ContinuousClock.now + watchInterval
                    while !stop.isTriggered && ContinuousClock.now < until {
                        try? await Task.sleep(for: .milliseconds(100))
                    }
                }
            }
        }
    ]

    static func show(_ answer: StatsResponse, json: Bool, context: CommandContext) throws {
        if json {
            try context.terminal.json(answer)
        } else {
            context.terminal.print(render(answer))
        }
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
