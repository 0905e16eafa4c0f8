import Foundation
import JSON
import TestSupport
import Testing

import TestSupport
@testable import DemoMatch
@testable import Statistics

/// Loads the dashboard in headless Chromium against the example responses.
@Suite("Dashboard in headless Chromium", .serialized)
struct DashboardPageTests {
    /// Writes one fixture folder: the page, its style sheet and script, and the two JSON responses.
    private func writeFixture(_ folder: URL, stats: StatsResponse, live: LiveStatsResponse, game: GameLiveResponse? = nil) throws {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for asset in DashboardPage.assets.values {
            try Data(asset.body).write(to: folder.appendingPathComponent(asset.name))
        }
        if let game { try Data(JSONCoding.encode(game)).write(to: folder.appendingPathComponent("game.json")) }
        try Data(JSONCoding.encode(stats)).write(to: folder.appendingPathComponent("stats.json"))
        try Data(JSONCoding.encode(live)).write(to: folder.appendingPathComponent("live.json"))
    }

    /// Runs Chromium headless with virtual time (so the 2 s refresh fires twice in 5 s of page
    /// time) and returns what it printed.
    private func chromium(_ arguments: [String], profile: URL, width: Int = 1400) async throws -> ExternalTool.Result {
        let common = [
            "--headless", "--disable-gpu", "--no-sandbox", "--no-first-run", "--disable-extensions",
            "--disable-dev-shm-usage", "--hide-scrollbars", "--mute-audio", "--user-data-dir=\(profile.path)",
            "--enable-logging=stderr", "--v=0", "--virtual-time-budget=5000", "--window-size=\(width),1700",
        ]
        let result: ExternalTool.Result
        do {
            // Only a hang guard: page time is virtual, but on a loaded 2-core machine Chromium
            // itself once needed more than 90 s of real time to start and render.
            result = try await ExternalTool.run("chromium", common + arguments, timeout: .seconds(300))
        } catch {
            Issue.record("chromium is required for this test: apt-get install -y chromium (see Deploy/packages-test.txt): \(error)")
            throw error
        }
        if result.status == 127 {
            Issue.record("chromium is not installed: apt-get install -y chromium (see Deploy/packages-test.txt)")
        }
        return result
    }

    /// Console lines Chromium logged. The page logs nothing itself, so any line is a problem:
    /// Chromium reports `console.error`, uncaught exceptions and CSP refusals all as
    /// `INFO:CONSOLE` lines, with no level to tell them apart.
    private func consoleProblems(_ stderr: String) -> [String] {
        stderr.split(separator: "\n").map(String.init).filter { $0.contains(":CONSOLE") || $0.contains("Refused to") }
    }

    /// The `<path>` tags inside the `<svg id="…">` element of a dumped DOM.
    private func seriesPaths(in dom: String, svgID: String) -> [String] {
        guard let start = dom.range(of: "<svg id=\"\(svgID)\"") else { return [] }
        guard let end = dom.range(of: "</svg>", range: start.upperBound..<dom.endIndex) else { return [] }
        let chart = dom[start.lowerBound..<end.upperBound]
        return chart.matches(of: /<path [^>]*>/).map { String($0.output) }.filter { $0.contains("class=\"series") }
    }

    /// The value of attribute `name` on the first `<tag …>` of a dumped DOM.
    private func attribute(_ name: String, of tag: String, in dom: String) -> String? {
        guard let start = dom.range(of: "<\(tag)"), let end = dom[start.upperBound...].firstIndex(of: ">") else { return nil }
        let open = dom[start.upperBound..<end]
        guard let value = open.range(of: " \(name)=\"") else { return nil }
        return String(open[value.upperBound...].prefix { $0 != "\"" })
    }

    @Test func rendersChartsWithoutConsoleErrorsAndKeepsAScreenshot() async throws {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("dashboard-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: scratch) }
        try writeFixture(scratch.appendingPathComponent("example"), stats: .example, live: .example)
        let server = try await FixtureServer(root: scratch)
        defer { server.stop() }

        let artifacts = ScorecastProcess.packageRoot.appendingPathComponent(".build/artifacts")
        try FileManager.default.createDirectory(at: artifacts, withIntermediateDirectories: true)
        let screenshot = artifacts.appendingPathComponent("dashboard.png")
        try? FileManager.default.removeItem(at: screenshot)

        let shot = try await chromium(["--screenshot=\(screenshot.path)", server.url("example", "dashboard")], profile: scratch.appendingPathComponent("profile-shot"))
        #expect(shot.status == 0, "chromium --screenshot failed: \(shot.stderr.suffix(2_000))")
        #expect(consoleProblems(shot.stderr).isEmpty, "console: \(consoleProblems(shot.stderr))")
        let size = (try? FileManager.default.attributesOfItem(atPath: screenshot.path)[.size] as? Int) ?? 0
        #expect(size > 50_000, "screenshot missing or blank: \(screenshot.path) (\(size) bytes)")

        let dump = try await chromium(["--dump-dom", server.url("example", "dashboard")], profile: scratch.appendingPathComponent("profile-dom"))
        #expect(dump.status == 0, "chromium --dump-dom failed: \(dump.stderr.suffix(2_000))")
        #expect(consoleProblems(dump.stderr).isEmpty, "console: \(consoleProblems(dump.stderr))")
        let dom = dump.stdout
        #expect(attribute("data-errors", of: "html", in: dom) == nil, "script errors: \(attribute("data-errors", of: "html", in: dom) ?? "")")
        #expect(attribute("data-status", of: "body", in: dom) == "ok")
        // The page refreshed on its 2 s timer (virtual time), not only once.
        #expect(Int(attribute("data-renders", of: "body", in: dom) ?? "0") ?? 0 >= 2)
        #expect(server.requests("example").filter { $0 == "/example/v1/stats?window=15m" }.count >= 2)
        #expect(server.requests("example").contains("/example/v1/stats/live"))
        #expect(dom.contains("<select id=\"window\""), "the window picker is missing")
        #expect(dom.contains("oldest due update waited 1 s") && dom.contains("6 s ago"), "backlog and feed silence")

        // Charts: one non-empty path per series.
        // Nothing cut off: the page checks every text against its box, its card and its chart.
        #expect(attribute("data-clipped", of: "body", in: dom) == nil, "clipped: \(attribute("data-clipped", of: "body", in: dom) ?? "")")
        // Ingest → send: p50, p95, p99 of all updates and the alerting updates' p99.
        for (chart, series) in [("throughput-chart", 3), ("latency-chart", 4), ("answer-chart", 3)] {
            let paths = seriesPaths(in: dom, svgID: chart)
            #expect(paths.count == series, "\(chart): \(paths.count) series paths")
            let drawn = paths.compactMap { $0.firstMatch(of: /\sd="(M[^"]+)"/)?.output.1 }
            #expect(drawn.count == series && drawn.allSatisfy { $0.contains("L") || $0.contains("Z") }, "\(chart) has an empty path")
            // …and painted: the page checks each path's computed fill or stroke and its box.
            #expect(attribute("data-visible-series", of: "svg id=\"\(chart)\"", in: dom) == String(series), "\(chart): series drawn but not painted")
        }
        // Panels filled from the example data.
        #expect(dom.contains(DemoFeed.homeTeam) && dom.contains(DemoFeed.awayTeam))
        #expect(dom.contains("TooManyRequests") && dom.contains("ChannelNotRegistered"))
        #expect(
            dom.matches(of: /<div class="bar-row">/).count
                == LiveStatsResponse.example.budgets.count + StatsResponse.example.totals.failures.count + LiveStatsResponse.example.channelUsage.count)
        // The headline is the alerting p99, all updates' p99 below it; channels per app in the warn colour from 80 %.
        #expect(dom.contains(">Alerts p99<") && dom.contains(">13 ms<") && dom.contains(">all updates p99 51 ms<"))
        #expect(!dom.contains(">All updates p99<"), "no headline tile for updates held back on purpose")
        #expect(dom.contains(">9,301 / 10,000<") && dom.contains("699 left") && dom.contains(">415 / 10,000<"))
        #expect(attribute("hidden", of: "section id=\"game-view\"", in: dom) != nil, "no game is open")
        // "Live games" lists only the games in play, not those about to start or just finished.
        let inPlay = LiveStatsResponse.example.games.filter { ["live", "suspended"].contains($0.status) }
        #expect(!inPlay.isEmpty && inPlay.count < LiveStatsResponse.example.games.count)
        #expect(dom.matches(of: /<div class="game( selected)?"/).count == inPlay.count)
        #expect(dom.matches(of: /<tr><td class="mono">/).count == LiveStatsResponse.example.recentDeliveries.count)
        #expect(dom.contains(">\(StatsResponse.example.totals.coalesced)<") && dom.contains(">\(StatsResponse.example.totals.downgraded)<"))
    }

    @Test func aGameOpensFromTheURLWithItsChannelsDeliveriesBudgetAndAlerts() async throws {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("dashboard-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: scratch) }
        let game = GameLiveResponse.example
        try writeFixture(scratch.appendingPathComponent("game"), stats: .example, live: .example, game: game)
        let server = try await FixtureServer(root: scratch)
        defer { server.stop() }
        // The URL keeps both the window and the open game.
        let url = server.url("game", "dashboard") + "#window=1h&game=" + game.game.game

        let artifacts = ScorecastProcess.packageRoot.appendingPathComponent(".build/artifacts")
        try FileManager.default.createDirectory(at: artifacts, withIntermediateDirectories: true)
        let screenshot = artifacts.appendingPathComponent("dashboard-game.png")
        let shot = try await chromium(["--screenshot=\(screenshot.path)", url], profile: scratch.appendingPathComponent("profile-shot"))
        #expect(shot.status == 0, "chromium --screenshot failed: \(shot.stderr.suffix(2_000))")

        let dump = try await chromium(["--dump-dom", url], profile: scratch.appendingPathComponent("profile-dom"))
        #expect(dump.status == 0, "chromium --dump-dom failed: \(dump.stderr.suffix(2_000))")
        #expect(consoleProblems(dump.stderr).isEmpty, "console: \(consoleProblems(dump.stderr))")
        let dom = dump.stdout
        #expect(attribute("data-errors", of: "html", in: dom) == nil, "script errors: \(attribute("data-errors", of: "html", in: dom) ?? "")")
        #expect(attribute("data-status", of: "body", in: dom) == "ok")
        #expect(attribute("data-clipped", of: "body", in: dom) == nil, "clipped: \(attribute("data-clipped", of: "body", in: dom) ?? "")")
        #expect(server.requests("game").contains("/game/v1/games/\(game.game.game)/live"))
        #expect(server.requests("game").contains("/game/v1/stats?window=1h"))
        #expect(!server.requests("game").contains("/game/v1/stats?window=15m"))

        // The view is open, titled with the score, and holds the snapshot's rows.
        #expect(attribute("hidden", of: "section id=\"game-view\"", in: dom) == nil)
        #expect(dom.contains("\(game.game.home) \(game.game.homeScore) – \(game.game.awayScore) \(game.game.away)"))
        let channels = try #require(dom.firstRange(of: "<table id=\"gv-channels\">").map { dom[$0.lowerBound...] })
        let channelTable = channels[..<(channels.range(of: "</table>")?.upperBound ?? channels.endIndex)]
        #expect(channelTable.matches(of: /<tr><td class="channel mono"/).count == game.channels.count)
        for channel in game.channels {
            let budget = try #require(channel.budget)
            #expect(channelTable.contains(">\(budget.priority10Used) / \(budget.priority10Limit)<"))
        }
        let deliveries = try #require(dom.firstRange(of: "<table id=\"gv-deliveries\">").map { dom[$0.lowerBound...] })
        let deliveryTable = deliveries[..<(deliveries.range(of: "</table>")?.upperBound ?? deliveries.endIndex)]
        #expect(deliveryTable.matches(of: /<tr><td class="mono">/).count == game.recentDeliveries.count)
        // Budget: the live channels together; alerts still owed, with how long they waited.
        let used = game.channels.compactMap(\.budget).reduce(0) { $0 + $1.priority10Used }
        let limit = game.channels.compactMap(\.budget).reduce(0) { $0 + $1.priority10Limit }
        #expect(dom.contains(">\(used) / \(limit)<"))
        #expect(dom.matches(of: /<div class="alert-row">/).count == game.pendingAlerts.count)
        #expect(dom.contains(game.pendingAlerts[0].text) && dom.contains(">1 s<"))
        // The game's card is marked as the open one.
        #expect(dom.contains("class=\"game selected\""))
    }

    /// What the fans see, drawn from each channel's `face` in the game view: the lock screen,
    /// the Dynamic Island compact and expanded, and the alert last shown, for a game in play
    /// (one channel still showing an older state) and a finished one (the activity ended), at
    /// a phone's width and a desktop's; each screenshot kept in `.build/artifacts`.
    @Test(arguments: [("live", 420), ("live", 1400), ("final", 420), ("final", 1400)])
    func theGameViewDrawsWhatTheFansSee(kind: String, width: Int) async throws {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("dashboard-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: scratch) }
        let game = kind == "live" ? GameLiveResponse.example : GameLiveResponse.finishedExample
        try writeFixture(scratch.appendingPathComponent("fans"), stats: .example, live: .example, game: game)
        let server = try await FixtureServer(root: scratch)
        defer { server.stop() }
        let url = server.url("fans", "dashboard") + "#game=" + game.game.game

        let artifacts = ScorecastProcess.packageRoot.appendingPathComponent(".build/artifacts")
        try FileManager.default.createDirectory(at: artifacts, withIntermediateDirectories: true)
        let screenshot = artifacts.appendingPathComponent("dashboard-fans-\(kind)-\(width).png")
        try? FileManager.default.removeItem(at: screenshot)
        let shot = try await chromium(["--screenshot=\(screenshot.path)", url], profile: scratch.appendingPathComponent("profile-shot"), width: width)
        #expect(shot.status == 0, "chromium --screenshot failed: \(shot.stderr.suffix(2_000))")
        let size = (try? FileManager.default.attributesOfItem(atPath: screenshot.path)[.size] as? Int) ?? 0
        #expect(size > 50_000, "screenshot missing or blank: \(screenshot.path) (\(size) bytes)")

        let dump = try await chromium(["--dump-dom", url], profile: scratch.appendingPathComponent("profile-dom"), width: width)
        #expect(dump.status == 0, "chromium --dump-dom failed: \(dump.stderr.suffix(2_000))")
        #expect(consoleProblems(dump.stderr).isEmpty, "console: \(consoleProblems(dump.stderr))")
        let dom = dump.stdout
        #expect(attribute("data-errors", of: "html", in: dom) == nil, "script errors: \(attribute("data-errors", of: "html", in: dom) ?? "")")
        #expect(attribute("data-status", of: "body", in: dom) == "ok")
        #expect(attribute("data-clipped", of: "body", in: dom) == nil, "clipped: \(attribute("data-clipped", of: "body", in: dom) ?? "")")

        // One drawing of each kind per channel with a face, each from that channel's own face.
        let faces = game.channels.compactMap { channel in channel.face.map { (channel.channel, $0) } }
        #expect(!faces.isEmpty)
        for part in ["lock-screen", "island-compact", "island-expanded", "alert"] {
            #expect(dom.components(separatedBy: "data-part=\"\(part)\"").count - 1 == faces.count, "\(part)")
        }
        for (channel, face) in faces {
            // The channel's drawing: from its tag to the next channel's.
            let start = try #require(dom.range(of: "data-channel=\"\(channel)\""), "no drawing for \(channel)")
            let rest = dom[start.lowerBound...]
            let own = rest[..<(rest.dropFirst().range(of: "data-channel=")?.lowerBound ?? rest.endIndex)]
            #expect(own.contains(">\(face.homeScore) – \(face.awayScore)<"), "lock screen score of \(channel)")
            // The game's own codes (the demo registers NBU and CFC), never guessed from the names.
            #expect(own.contains(">NBU \(face.homeScore)<") && own.contains(">\(face.awayScore) CFC<"), "compact island of \(channel)")
            #expect(own.contains("background-color: rgb(200, 16, 46)") && own.contains("color: rgb(255, 255, 255)"), "home badge colours of \(channel)")
            #expect(own.contains(">\(face.period ?? "") · \(face.clock ?? "")<"), "clock of \(channel)")
            if let play = face.lastPlay { #expect(own.contains(play), "last play of \(channel)") }
            let alert = try #require(face.alert)
            #expect(own.contains(">\(alert.title ?? "")<") && own.contains(">\(alert.body ?? "")<"), "alert of \(channel)")
            #expect(own.contains("data-event=\"\(face.event)\""))
        }
        if kind == "live" {
            #expect(dom.contains(">Live<") && dom.contains(">newer update waiting<"))
        } else {
            #expect(dom.contains(">Final<") && !dom.contains(">Live<"))
        }
    }

    /// Figures a thousand times larger and latencies a hundred times slower than the example's
    /// (four- and five-digit axis labels, seven-digit counts), an app at its channel limit:
    /// every text still fits (the issue's "2,500 ms reads 500 ms"), at a phone's width (420 px)
    /// and a desktop's (1400 px).
    @Test(arguments: [420, 1400]) func largeFiguresAreNotClipped(width: Int) async throws {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("dashboard-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: scratch) }
        func scaled(_ figures: DeliveryFigures) -> DeliveryFigures {
            var figures = figures
            let sends = figures.sends
            figures.sends = SendCounts(
                accepted: sends.accepted * 1_000, retried: sends.retried * 1_000, failed: sends.failed * 1_000,
                priority10: sends.priority10 * 1_000, priority5: sends.priority5 * 1_000)
            figures.failures = figures.failures.map { ReasonCount(reason: $0.reason, count: $0.count * 1_000) }
            figures.coalesced *= 1_000
            figures.downgraded *= 1_000
            figures.retried *= 1_000
            figures.throttled *= 1_000
            func slower(_ value: LatencyPercentiles) -> LatencyPercentiles {
                LatencyPercentiles(samples: value.samples, p50Ms: value.p50Ms.map { $0 * 100 }, p95Ms: value.p95Ms.map { $0 * 100 }, p99Ms: value.p99Ms.map { $0 * 100 })
            }
            figures.latency = LatencyFigures(
                ingestToSend: slower(figures.latency.ingestToSend), sendToAnswer: slower(figures.latency.sendToAnswer),
                alertingIngestToSend: figures.latency.alertingIngestToSend.map(slower))
            return figures
        }
        var stats = StatsResponse.example
        stats.totals = scaled(stats.totals)
        stats.series = stats.series.map { StatsBucket(start: $0.start, figures: scaled($0.figures)) }
        var live = LiveStatsResponse.example
        live.channelUsage[0].channels = ChannelUsage(active: 9_990, retiring: 10)
        live.channelUsage += (1...10).map { AppChannelUsage(app: "com.example.app\($0)", environment: "production", channels: ChannelUsage(active: 10 - $0, retiring: 0)) }
        live.backlog = BacklogStatus(pending: 1_234_567, oldestPendingSeconds: 7_384, lastEventAt: StatsExample.end.addingTimeInterval(-5_000))
        try writeFixture(scratch.appendingPathComponent("large"), stats: stats, live: live, game: .example)
        let server = try await FixtureServer(root: scratch)
        defer { server.stop() }

        let dump = try await chromium(
            ["--dump-dom", server.url("large", "dashboard") + "#game=" + GameLiveResponse.example.game.game],
            profile: scratch.appendingPathComponent("profile"), width: width)
        #expect(dump.status == 0, "chromium --dump-dom failed: \(dump.stderr.suffix(2_000))")
        let dom = dump.stdout
        #expect(attribute("data-status", of: "body", in: dom) == "ok")
        #expect(dom.contains(">10,000 ms<"), "the latency axis reaches 10,000 ms")
        #expect(dom.contains(">894,000<") && dom.contains(">10,000 / 10,000<") && dom.contains("limit reached"))
        // Twelve apps: the eight most used, and a line for the rest.
        #expect(dom.contains(">and 4 more apps with fewer channels<"))
        #expect(!dom.contains(">com.example.app7<"))
        #expect(attribute("data-clipped", of: "body", in: dom) == nil, "clipped: \(attribute("data-clipped", of: "body", in: dom) ?? "")")
    }

    /// Quarter ticks of a 25 top are 6.25, 12.5 and 18.75 (the issue: "throughput ticks round
    /// 2.5 to 3"), and a four-digit latency has its thousands separator.
    @Test func axisTicksAndLatenciesAreShownExactly() async throws {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("dashboard-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: scratch) }
        var stats = StatsResponse.example
        stats.series = stats.series.enumerated().map { index, bucket in
            var figures = bucket.figures
            figures.sends = SendCounts(accepted: index == 14 ? 22 : 1, retried: 0, failed: 0, priority10: 1, priority5: index == 14 ? 21 : 0)
            figures.latency = LatencyFigures(
                ingestToSend: LatencyPercentiles(samples: 1, p50Ms: 5, p95Ms: 10, p99Ms: 22),
                sendToAnswer: LatencyPercentiles(samples: 1, p50Ms: 1, p95Ms: 2, p99Ms: 3))
            return StatsBucket(start: bucket.start, figures: figures)
        }
        stats.totals.latency.ingestToSend.p99Ms = 6_386.4
        try writeFixture(scratch.appendingPathComponent("ticks"), stats: stats, live: .example)
        let server = try await FixtureServer(root: scratch)
        defer { server.stop() }

        let dump = try await chromium(["--dump-dom", server.url("ticks", "dashboard")], profile: scratch.appendingPathComponent("profile"))
        #expect(dump.status == 0, "chromium --dump-dom failed: \(dump.stderr.suffix(2_000))")
        let dom = dump.stdout
        #expect(attribute("data-status", of: "body", in: dom) == "ok")
        for tick in [">6.25<", ">12.5<", ">18.75<", ">25<", ">6.25 ms<", ">18.75 ms<"] {
            #expect(dom.contains(tick), "tick \(tick) is missing")
        }
        #expect(!dom.contains(">6.3<") && !dom.contains(">18.8<"))
        #expect(dom.contains(">6,386 ms<"))
        #expect(attribute("data-clipped", of: "body", in: dom) == nil, "clipped: \(attribute("data-clipped", of: "body", in: dom) ?? "")")
    }

    @Test func dataIsInsertedAsTextNeverAsMarkup() async throws {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("dashboard-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: scratch) }
        let payload = "<img src=x onerror=\"document.documentElement.setAttribute('data-pwned','1')\">"
        var live = LiveStatsResponse.example
        live.games[0].home = payload + "Rovers"
        live.games[0].lastEvent = "<script>document.documentElement.setAttribute('data-pwned','2')</script>"
        live.recentDeliveries[0].reason = payload
        live.budgets[0].channel = "\"><svg onload=\"document.documentElement.setAttribute('data-pwned','3')\">"
        var stats = StatsResponse.example
        stats.totals.failures[0].reason = payload
        var game = GameLiveResponse.example
        game.pendingAlerts[0].text = payload
        game.channels[0].app = "<script>document.documentElement.setAttribute('data-pwned','4')</script>"
        try writeFixture(scratch.appendingPathComponent("hostile"), stats: stats, live: live, game: game)
        let server = try await FixtureServer(root: scratch)
        defer { server.stop() }

        let dump = try await chromium(
            ["--dump-dom", server.url("hostile", "dashboard") + "#game=" + game.game.game],
            profile: scratch.appendingPathComponent("profile"))
        #expect(dump.status == 0, "chromium --dump-dom failed: \(dump.stderr.suffix(2_000))")
        let dom = dump.stdout
        #expect(attribute("data-status", of: "body", in: dom) == "ok")
        // The payloads show up as text; none of them ran.
        #expect(attribute("data-pwned", of: "html", in: dom) == nil)
        #expect(!dom.contains("<img"))
        #expect(dom.contains("&lt;img src=x onerror="))
        #expect(dom.contains("&lt;script&gt;document.documentElement"))
    }
}
