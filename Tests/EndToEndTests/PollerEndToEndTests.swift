import EndToEndSupport
import Foundation
import ScorecastLogging
import Postgres
import Testing
import TestSupport

/// The poller and `scorecast stats` as a user runs them: the built binary, real processes.
@Suite(.serialized) struct PollerEndToEndTests {
    static let logger = Logger(label: "poller-e2e", level: .error)

    /// A migrated schema of the test's own and the environment pointing `scorecast` at it.
    func migratedSchema() async throws -> (pool: PostgresPool, environment: [String: String], state: TemporaryFolder) {
        let schema = try await TestDatabase.shared().makeSchema()
        let state = try TemporaryFolder("poller-e2e")
        let environment = ["SCORECAST_DATABASE_URL": schema.testConnectionString, "SCORECAST_STATE_DIR": state.url.path]
        let migrated = try await ScorecastProcess.run(["migrate"], environment: environment)
        #expect(migrated.code == 0, "migrate: \(migrated.stderr)")
        return (PostgresPool(configuration: schema, maxConnections: 2, logger: Self.logger), environment, state)
    }

    @Test func aKilledLeaderProcessIsReplacedWithinSeconds() async throws {
        let (pool, environment, state) = try await migratedSchema()
        defer { state.remove() }
        func start(_ name: String) throws -> ScorecastProcess {
            let folder = state.url.appendingPathComponent(name)
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            return try ScorecastProcess(["serve", "--roles", "poller"], environment: environment.merging([
                "SCORECAST_STATE_DIR": folder.path, "SCORECAST_POLLER_LEADER_CHECK_MS": "200", "SCORECAST_AUTO_MIGRATE": "false",
            ]) { _, new in new })
        }
        let first = try start("a")
        let second = try start("b")
        let leadLine = "became the poller leader"
        var leader: ScorecastProcess?
        try await eventually("an instance becomes the poller leader") {
            leader = [first, second].first { ($0.output + $0.errorOutput).contains(leadLine) }
            return leader != nil
        }
        let current = try #require(leader)
        let follower = current === first ? second : first
        try await Task.sleep(for: .milliseconds(600))
        #expect(!(follower.output + follower.errorOutput).contains(leadLine), "two leaders at once")

        current.signal(SIGKILL)
        // The hand-over itself, not how soon (a bound of 5 s is a margin a loaded machine can miss).
        _ = try await follower.waitForLine(containing: leadLine, timeout: hangDeadline)
        #expect(try await holderPID(pool) != nil)

        follower.signal(SIGTERM)
        #expect(await follower.waitForExit() == 0, "stderr:\n\(follower.errorOutput)")
        #expect(try await holderPID(pool) == nil)
        await pool.close()
    }

    @Test func statsPrintsTheFiguresOfTheDeliveriesTable() async throws {
        let (pool, environment, state) = try await migratedSchema()
        defer { state.remove() }
        let app: Int64 = try #require(try await pool.query("""
            INSERT INTO apps (bundle_id, environment, team_id, key_id, key_path)
            VALUES ('com.example.scores', 'sandbox', 'TEAM123456', 'KEY1234567', '/k.p8') RETURNING id
            """).first).decode("id")
        let channel: Int64 = try #require(try await pool.query("""
            INSERT INTO channels (apns_channel_id, app_id, storage_policy) VALUES ('c1', \(app), 0) RETURNING id
            """).first).decode("id")
        // Eight attempts over the last few minutes: 5 sent (one downgraded), 2 throttled retries, 1 failed.
        try await pool.execute("""
            INSERT INTO deliveries (channel_id, app_id, event_ids, outbox_version, requested_priority, priority, downgraded, coalesced,
                                    attempt, outcome, status_code, reason, apns_latency_ms, ingest_to_send_ms, sent_at)
            SELECT \(channel), \(app), '{1}', 1, 10, CASE WHEN n = 5 THEN 5 ELSE 10 END, n = 5, 1, 1,
                   CASE WHEN n IN (6, 7) THEN 'retry' WHEN n = 8 THEN 'failed' ELSE 'sent' END,
                   CASE WHEN n IN (6, 7) THEN 429 WHEN n = 8 THEN 400 ELSE 200 END,
                   CASE WHEN n IN (6, 7) THEN 'TooManyRequests' WHEN n = 8 THEN 'BadPriority' END,
                   n, 10 * n, now() - make_interval(secs => n * 20)
            FROM generate_series(1, 8) AS n
            """)
        let json = try await ScorecastProcess.run(["stats", "--json", "--window", "15m"], environment: environment)
        #expect(json.code == 0, "stderr: \(json.stderr)")
        let answer = try jsonObject(Array(json.stdout.utf8))
        let totals = try #require(answer["totals"] as? [String: Any])
        let sends = try #require(totals["sends"] as? [String: Any])
        #expect(sends["total"] as? Int == 8 && sends["accepted"] as? Int == 5 && sends["retried"] as? Int == 2 && sends["failed"] as? Int == 1)
        #expect(sends["priority10"] as? Int == 7 && sends["priority5"] as? Int == 1)
        #expect(totals["throttled"] as? Int == 2 && totals["downgraded"] as? Int == 1 && totals["coalesced"] as? Int == 6)
        #expect((answer["series"] as? [Any])?.count == 15)

        let table = try await ScorecastProcess.run(["stats"], environment: environment)
        #expect(table.code == 0)
        #expect(table.stdout.contains("TooManyRequests  2") && table.stdout.contains("accepted 5, retried 2, failed 1"), "\(table.stdout)")

        let watch = try ScorecastProcess(["stats", "--watch", "--window", "1h"], environment: environment)
        _ = try await watch.waitForLine(containing: "scorecast stats: last 1h")
        watch.signal(SIGINT)
        #expect(await watch.waitForExit() == 0, "stderr: \(watch.errorOutput)")

        let bad = try await ScorecastProcess.run(["stats", "--window", "forever"], environment: environment)
        #expect(bad.code == 2 && bad.stderr.contains("window \"forever\""))
        await pool.close()
    }

    func holderPID(_ pool: PostgresPool) async throws -> Int32? {
        try await pool.query("""
            SELECT pid FROM pg_locks
            WHERE locktype = 'advisory' AND granted AND objsubid = 1
              AND classid = ((hashtextextended('scorecast.poller:' || current_schema(), 0) >> 32) & 4294967295)::oid
              AND objid = (hashtextextended('scorecast.poller:' || current_schema(), 0) & 4294967295)::oid
            """).first?.decode("pid", as: Int32.self)
    }
}
