import EndToEndSupport
import Foundation
import Postgres
import Testing
import TestSupport

/// scorecast behind Debian's PgBouncer (1.18) in transaction mode: the main URL through the
/// pooler with `SCORECAST_DATABASE_POOLER=transaction`, the session work (LISTEN, the poller's
/// leader lock, migrations) on `SCORECAST_DATABASE_DIRECT_URL`.
@Suite("Behind PgBouncer in transaction mode", .serialized)
struct PgBouncerTests {
    /// The environment that points every `scorecast` run at the pooler, or (`pooler: false`)
    /// at the pooler without saying so.
    static func environment(_ bed: PgBouncerBed, pooler: Bool = true) -> [String: String] {
        var environment = ["SCORECAST_DATABASE_URL": RegistryE2E.conninfo(bed.pooled) + " sslmode=disable"]
        if pooler {
            environment["SCORECAST_DATABASE_POOLER"] = "transaction"
            environment["SCORECAST_DATABASE_DIRECT_URL"] = RegistryE2E.conninfo(bed.direct)
        }
        return environment
    }

    @Test("migrate, registry commands and serve through the pooler: every channel shows its game's newest state, every goal announced")
    func serveThroughThePooler() async throws {
        try await PgBouncerBed.with { bed in
            // The role's settings reach sessions handed out by the pooler.
            let probe = try await PostgresConnection.connect(configuration: bed.pooled, logger: TestDatabase.logger)
            let timeout: String = try await probe.query("SELECT current_setting('statement_timeout') AS value")[0].decode("value")
            await probe.close()
            #expect(timeout == PgBouncerBed.roleStatementTimeout)

            try await FaultBed.with(schema: bed.direct, extra: Self.environment(bed)) { fault in
                let (server, url) = try await fault.serve()
                for seq in 1...2 {
                    for game in FaultBed.games {
                        try await fault.post(try #require(url), [FaultBed.event(game, seq: seq, player: "\(game)-P\(seq)", home: seq)])
                    }
                }
                try await eventually("every channel shows its newest state") {
                    try await fault.caughtUp(home: 2)
                }
                for game in FaultBed.games {
                    let verdict = try fault.verdict(game, home: 2, players: ["\(game)-P1", "\(game)-P2"])
                    #expect(verdict.newestStateShown && verdict.alertsLost.isEmpty && verdict.duplicates == 0 && verdict.inOrder, "\(game): \(verdict)")
                }
                // The leader lock is held on the direct connection, never through the pooler.
                let leaders = try await fault.e2e.pool.query("""
                    SELECT application_name FROM pg_locks JOIN pg_stat_activity USING (pid)
                    WHERE locktype = 'advisory' AND granted
                    """)
                #expect(try leaders.map { try $0.decode("application_name", as: String.self) } == ["scorecast-poller-leader"])
                await fault.stop(server)
            }
        }
    }

    @Test("without SCORECAST_DATABASE_POOLER the pooler's refusal is a clear error naming the setting, not a hang")
    func withoutTheSettingTheErrorIsClear() async throws {
        try await PgBouncerBed.with { bed in
            let run = try await ScorecastProcess.run(["games", "list"], environment: Self.environment(bed, pooler: false))
            #expect(run.code == 5, "\(run.stderr)")
            #expect(run.stderr.contains("unsupported startup parameter"), "\(run.stderr)")
            #expect(run.stderr.contains("SCORECAST_DATABASE_POOLER=transaction"), "\(run.stderr)")
        }
    }

    @Test("a role whose DateStyle the decoders cannot read is refused at start, naming the fix")
    func aRoleWithoutISODatesIsRefused() async throws {
        try await PgBouncerBed.with(dateStyle: "German, DMY") { bed in
            let run = try await ScorecastProcess.run(["games", "list"], environment: Self.environment(bed))
            #expect(run.code == 5, "\(run.stderr)")
            #expect(run.stderr.contains("DateStyle is 'German, DMY' (ALTER ROLE … SET DateStyle = 'ISO, MDY')"), "\(run.stderr)")
        }
    }
}
