import Foundation
import Postgres
import ScorecastLogging
import Testing
import TestSupport

/// The operator's terminal view through the built binary: `scorecast stats --watch` rides out a
/// restart of its Postgres, and every command on an unmigrated database names the fix.
@Suite("End to end: stats --watch and unmigrated databases", .serialized)
struct StatsWatchEndToEndTests {
    @Test("stats --watch says it is reconnecting while Postgres is down, and carries on once it is back")
    func watchRidesOutADatabaseRestart() async throws {
        let folder = try TemporaryFolder("scorecast-watch-pg")
        defer { folder.remove() }
        // A cluster of this test's own, so that stopping it disturbs no other test.
        let server = EmbeddedPostgres(stateDirectory: folder.url, durable: false, logger: Logger(label: "watch-pg", level: .error))
        defer { server.stop() }
        let environment = ["SCORECAST_DATABASE_URL": try await server.start().testConnectionString]
        let migrate = try await ScorecastProcess.run(["migrate"], environment: environment)
        #expect(migrate.code == 0, "\(migrate.stderr)")

        let watch = try ScorecastProcess(["stats", "--watch"], environment: environment)
        _ = try await watch.waitForLine(containing: "paused apps: none")
        #expect(watch.output.contains("backlog: 0 update(s) pending"), "\(watch.output)")
        server.stop()
        _ = try await watch.waitForLine(containing: "reconnecting every 2 s")
        #expect(watch.isRunning, "the watch is still running:\n\(watch.errorOutput)")
        _ = try await server.start()
        _ = try await watch.waitForLine(containing: "reconnected to the database after")
        watch.signal(SIGINT)
        #expect(await watch.waitForExit() == 0, "\(watch.errorOutput)")
        #expect(!watch.errorOutput.contains("PostgresError"), "\(watch.errorOutput)")
    }

    @Test("every command on an unmigrated database says to run scorecast migrate, not which relation is missing")
    func unmigratedDatabaseNamesTheFix() async throws {
        let schema = try await TestDatabase.shared().makeSchema()
        let environment = ["SCORECAST_DATABASE_URL": schema.testConnectionString]
        for command in [["stats"], ["stats", "--watch"], ["keys", "list"], ["apps", "list"], ["games", "list"], ["channels", "list"]] {
            let result = try await ScorecastProcess.run(command, environment: environment)
            #expect(result.code == 5, "\(command): \(result.code) \(result.stderr)")
            #expect(result.stderr.contains("run `scorecast migrate` (or start `scorecast serve`"), "\(command): \(result.stderr)")
            #expect(!result.stderr.contains("does not exist") && !result.stderr.contains("PostgresError"), "\(command): \(result.stderr)")
        }
    }
}
