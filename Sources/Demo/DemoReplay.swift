import DemoMatch
import Registry
import ScorecastCrypto
import Foundation
import Lifecycle
import ScorecastLogging
import Postgres
import ScorecastCore
import Server

/// The first-run demo as a service: sets up a demo app (with a generated key registered with
/// the built-in simulator), a game and its channel, an API key, then replays the bundled match
/// through the real ingest API of this process and prints what happens.
package struct DemoReplay: Service {
    package let name = "demo"
    let running: Application.Running
    let speedup: Double

    /// A replay on `running` at `speedup` times real time.
    package init(running: Application.Running, speedup: Double) {
        self.running = running
        self.speedup = speedup
    }

    static let bundleID = "com.example.scorecast.demo"

    package func run(until shutdown: ShutdownSignal) async throws {
        guard let baseURL = running.httpBaseURL else { throw RuntimeError(.invalidSettings, "the demo needs the api role") }
        let terminal = running.terminal
        let setup = try await prepare()
        terminal.line("""

            scorecast demo: \(DemoFeed.homeTeam) v \(DemoFeed.awayTeam) (\(DemoFeed.league)), \(Int(speedup))× real time
              dashboard   \(baseURL.absoluteString)/dashboard
              stats       \(baseURL.absoluteString)/v1/stats?window=15m
              metrics     \(baseURL.absoluteString)/metrics
              game        \(setup.gameID)   channel \(setup.channelID)   app \(Self.bundleID) (sandbox)
            Ctrl-C stops everything.

            """)
        let client = EventsClient(baseURL: baseURL, token: setup.token)
        let start = Date()
        let events = try DemoFeed.events(startingAt: start, speedup: speedup)
        for (index, timed) in events.enumerated() {
            let due = start.addingTimeInterval(Double(timed.offset.components.seconds) + Double(timed.offset.components.attoseconds) / 1e18)
            if await sleep(until: due, or: shutdown) { return }
            var event = timed.event
            event.game = setup.gameID
            event.id = "\(setup.gameID)-\(event.seq)"
            let answer = try await client.send(body: Array(try event.jsonData()), now: Date())
            terminal.line(Self.describe(event, status: answer.status))
            if index % 8 == 7 || index == events.count - 1 {
                try await Task.sleep(for: .milliseconds(300))  // let the workers answer
                terminal.line(try await deliverySummary(channelID: setup.channelID))
            }
        }
        terminal.line("\nfull time. The dashboard stays up until Ctrl-C: \(baseURL.absoluteString)/dashboard")
        await shutdown.wait()
    }

    /// Returns true when `shutdown` came first.
    private func sleep(until date: Date, or shutdown: ShutdownSignal) async -> Bool {
        while Date() < date {
            if shutdown.isTriggered { return true }
            try? await Task.sleep(for: .milliseconds(min(100, max(1, Int(date.timeIntervalSinceNow * 1000)))))
        }
        return shutdown.isTriggered
    }

    private struct Setup {
        let gameID: String
        let channelID: Int64
        let token: String
    }

    /// The demo app (created once, key generated), a new game per run, its channel and a key.
    private func prepare() async throws -> Setup {
        let configuration = running.configuration
        let apps = AppStore(pool: running.pool)
        var app = try await apps.find(bundleID: Self.bundleID, environment: .sandbox)
        if app == nil {
            let keyPath = GeneratedSigningKey.path(configuration, bundleID: Self.bundleID, environment: .sandbox)
            if !FileManager.default.fileExists(atPath: keyPath) { _ = try GeneratedSigningKey.write(to: keyPath) }
            var settings = AppSettings()
            settings.budgetPerHour = 6  // small, so that the match shows the budget running down
            app = try await apps.add(AppDraft(
                bundleID: Self.bundleID, environment: .sandbox, teamID: GeneratedSigningKey.randomAppleID(),
                keyID: GeneratedSigningKey.randomAppleID(), keyPath: keyPath, settings: settings))
        }
        guard let app else { throw RuntimeError(.failure, "the demo app could not be created") }
        if let simulator = running.apns.simulator { _ = simulator.register(apps: [app]) }

        let stamp = Date().formatted(.iso8601.year().month().day().time(includingFractionalSeconds: false).dateSeparator(.omitted).timeSeparator(.omitted))
            .replacingOccurrences(of: "T", with: "-").replacingOccurrences(of: "Z", with: "")
        let gameID = "\(DemoFeed.gameID)-\(stamp)"
        _ = try await GameStore(pool: running.pool).add(GameDraft(
            id: gameID, league: DemoFeed.league, sport: DemoFeed.sport, homeTeam: DemoFeed.homeTeam,
            awayTeam: DemoFeed.awayTeam, homeIdentity: DemoFeed.homeIdentity, awayIdentity: DemoFeed.awayIdentity, startsAt: Date()))
        let registry = ChannelRegistry(
            pool: running.pool, apns: running.apns.clients, credentials: CredentialStore(),
            channelLimit: configuration.channelLimit, staleness: IngestSettings(configuration: configuration).staleness,
            logger: running.logger)
        let channel = try await registry.createChannel(gameID: gameID, app: app)
        let key = try await APIKeyStore(pool: running.pool, keyring: running.configuration.secretsKeyring).create(name: "demo-\(stamp)", signed: false)
        return Setup(gameID: gameID, channelID: channel.listing.channel.id, token: key.token.text)
    }

    private func deliverySummary(channelID: Int64) async throws -> String {
        let rows = try await running.pool.query("""
            SELECT count(*) FILTER (WHERE outcome = 'sent')::int AS sent,
                   count(*) FILTER (WHERE outcome = 'sent' AND priority = 10)::int AS p10,
                   count(*) FILTER (WHERE outcome = 'sent' AND priority = 5)::int AS p5,
                   count(*) FILTER (WHERE downgraded)::int AS downgraded,
                   coalesce(sum(coalesced) FILTER (WHERE outcome = 'sent'), 0)::int AS coalesced,
                   count(*) FILTER (WHERE outcome NOT IN ('sent', 'retry'))::int AS failed
            FROM deliveries WHERE channel_id = \(channelID)
            """)
        guard let row = rows.first else { return "" }
        let sent: Int = try row.decode("sent"), p10: Int = try row.decode("p10"), p5: Int = try row.decode("p5")
        let downgraded: Int = try row.decode("downgraded"), coalesced: Int = try row.decode("coalesced")
        let failed: Int = try row.decode("failed")
        return "        ── broadcasts acknowledged: \(sent) (priority 10: \(p10), priority 5: \(p5)) · coalesced \(coalesced) · downgraded \(downgraded) · failed \(failed)"
    }

    static func describe(_ event: DemoEvent, status: Int) -> String {
        let minute = event.scoreboard.clock.padding(toLength: 6, withPad: " ", startingAt: 0)
        let kind = event.kind.rawValue.uppercased().padding(toLength: 12, withPad: " ", startingAt: 0)
        let score = "\(event.scoreboard.home)–\(event.scoreboard.away)"
        let answer = status == 202 ? "" : "   (HTTP \(status))"
        let text = event.description.count > 90 ? event.description.prefix(89) + "…" : Substring(event.description)
        return "  \(minute) \(kind) \(score)  \(text)\(answer)"
    }
}
