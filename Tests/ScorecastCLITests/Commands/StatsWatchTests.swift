import Foundation
import Postgres
@testable import Statistics
import Testing
@testable import ScorecastCLI

/// `scorecast stats --watch` between rounds, and the backlog and paused apps below the figures.
@Suite struct StatsWatchTests {
    @Test func aDatabaseThatIsAwayIsRetriedAndAnythingElseEndsTheWatch() {
        #expect(StatsWatch.isDatabaseAway(PostgresError(.connectionFailed, "connection refused")))
        #expect(StatsWatch.isDatabaseAway(PostgresError(.connectionClosed, "server closed the connection")))
        #expect(StatsWatch.isDatabaseAway(PostgresError(.queryFailed, "terminating connection", sqlState: "57P01")))
        #expect(StatsWatch.isDatabaseAway(PostgresError(.queryFailed, "the database system is starting up", sqlState: "57P03")))
        #expect(!StatsWatch.isDatabaseAway(PostgresError(.queryFailed, "relation \"outbox\" does not exist", sqlState: "42P01")))
        #expect(!StatsWatch.isDatabaseAway(PostgresError(.decodingFailed, "bad column")))
        #expect(!StatsWatch.isDatabaseAway(CommandError.usage("x")))
    }

    @Test func anOutageIsAnnouncedWithItsLengthAndItsEnd() {
        var watch = StatsWatch()
        let start = Date(timeIntervalSince1970: 1_000)
        #expect(watch.succeeded(at: start) == nil, "nothing to say while the database answers")
        let error = PostgresError(.connectionFailed, "connection refused")
        #expect(watch.failed(error, at: start)
            == "scorecast stats: the database is unavailable (connection refused); reconnecting every 2 s (Ctrl-C to stop)")
        #expect(watch.failed(error, at: start.addingTimeInterval(4)).hasSuffix(", away for 4 s (Ctrl-C to stop)"))
        #expect(watch.succeeded(at: start.addingTimeInterval(6)) == "scorecast stats: reconnected to the database after 6 s")
        #expect(watch.succeeded(at: start.addingTimeInterval(8)) == nil)
        #expect(watch.awaySince == nil)
    }

    @Test func theBacklogAndThePausedAppsAreShown() {
        let quiet = StatsCommands.render(backlog: BacklogStatus(pending: 0, oldestPendingSeconds: 0, lastEventAt: nil), paused: [])
        #expect(quiet == "backlog: 0 update(s) pending, the oldest due one waited 0 s\npaused apps: none\n")
        let paused = PausedAppStatus(
            app: "com.example.live", environment: "production", reason: "InvalidProviderToken",
            since: Date(timeIntervalSince1970: 0), waitingUpdates: 3)
        let text = StatsCommands.render(backlog: BacklogStatus(pending: 12, oldestPendingSeconds: 41.6, lastEventAt: nil), paused: [paused])
        #expect(text.contains("backlog: 12 update(s) pending, the oldest due one waited 42 s"))
        #expect(text.contains("com.example.live  production  InvalidProviderToken  3"), "\(text)")
        #expect(text.contains("scorecast apps resume BUNDLE"))
    }
}
