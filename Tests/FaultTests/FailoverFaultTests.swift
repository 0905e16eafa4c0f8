import Foundation
import Postgres
import Synchronization
import Testing
import TestSupport

/// A Postgres primary fails over while the feed posts goals: `serve` is given both servers in
/// libpq's multi-host URL (`target_session_attrs=read-write`), the CLI the key/value form of
/// the same, and nothing else is told of the failover. With synchronous replication every
/// event the feed was answered `202` for survives on the promoted standby; `serve` reconnects
/// there, listens again, takes the poller's lead again, and every goal is announced. The same
/// holds behind one stable address (a TCP proxy repointed to the promoted standby), as a
/// managed Postgres's endpoint gives it.
@Suite("Fault suite: a Postgres primary fails over", .serialized)
struct FailoverFaultTests {
    /// Goals each game gets from the feed task (after the two before it starts): within a
    /// standard app's priority-10 budget, so every one is sent as an alert.
    static let goalsDuringFailover = 3...8

    @Test("Primary crashed and standby promoted while the feed posts: nothing acknowledged lost, every goal announced")
    func aPromotedStandbyTakesOver() async throws {
        try await ReplicatedPostgres.with { pair in
            let database = TestDatabase.on(try PostgresConfiguration(url: pair.multiHostURL))
            try await FaultBed.with(database: database) { bed in
                #expect(bed.e2e.databaseURL.contains("port='\(pair.primaryPort),\(pair.standbyPort)'"), "the CLI ran on both hosts: \(bed.e2e.databaseURL)")
                try await Self.feedThroughFailover(bed, pair, serveURL: pair.multiHostURL + "&", report: "FAILOVER") {
                    try await pair.crashPrimary()
                    try await pair.promoteStandby()
                }
            }
        }
    }

    @Test("Primary crashed, standby promoted and the one address repointed to it: nothing acknowledged lost, every goal announced")
    func aPromotedStandbyBehindAStableAddressTakesOver() async throws {
        try await ReplicatedPostgres.with { pair in
            // As a managed Postgres's endpoint: `serve` and the CLI know one address only.
            let proxy = try TCPProxy(to: pair.primaryPort)
            defer { proxy.stop() }
            let address = "postgresql://postgres@127.0.0.1:\(proxy.port)/postgres"
            let database = TestDatabase.on(try PostgresConfiguration(url: address))
            try await FaultBed.with(database: database) { bed in
                try await Self.feedThroughFailover(bed, pair, serveURL: address + "?", report: "FAILOVER-ONE-ADDRESS") {
                    try await pair.crashPrimary()
                    try await pair.promoteStandby()
                    proxy.repoint(to: pair.standbyPort)
                }
            }
        }
    }

    /// Starts `serve` on `serveURL` (which ends in `?` or `&`: the schema's option follows),
    /// posts two goals, then keeps the feed posting while `failover` runs, and checks that
    /// every acknowledged event is on the promoted standby, every goal announced in order and
    /// `serve` listening and leading there; prints the figures as the `report` row.
    private static func feedThroughFailover(
        _ bed: FaultBed, _ pair: ReplicatedPostgres, serveURL: String, report: String, failover: () async throws -> Void
    ) async throws {
        let schema = try #require(bed.e2e.pool.configuration.searchPath?.first)
        let options = "-c search_path=\(schema)".addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
        let (server, started) = try await bed.serve(extra: ["SCORECAST_DATABASE_URL": serveURL + "options=" + options])
        let url = try #require(started)
        let acknowledged = Mutex<[String]>([])
        for seq in 1...2 {
            try #require(try await Self.post(url, Self.events(seq), key: bed.key) == 202)
            acknowledged.withLock { $0 += Self.goals(seq) }
        }
        try await eventually("goal 2 is announced everywhere") { try await bed.caughtUp(home: 2) }

        // The feed keeps posting, retrying whatever is refused, as its 503s ask.
        let feed = Task {
            var refused = 0
            for seq in Self.goalsDuringFailover {
                while try await Self.post(url, Self.events(seq), key: bed.key) != 202 {
                    refused += 1
                    if refused > 1_200 { throw TestSupportError("the feed was refused for a minute") }
                    try await Task.sleep(for: .milliseconds(50))
                }
                acknowledged.withLock { $0 += Self.goals(seq) }
            }
            return refused
        }
        try await eventually("the feed is under way") { acknowledged.withLock { $0.count } >= 3 * 4 }
        try await failover()
        let promotedAt = Date().timeIntervalSince1970
        let refused = try await feed.value
        let newest = Self.goalsDuringFailover.upperBound

        try await eventually("every channel shows its newest state") { try await bed.caughtUp(home: newest) }
        let stored = try await bed.e2e.pool.query("SELECT feed_event_id FROM events").map { try $0.decode("feed_event_id", as: String.self) }
        let lost = Set(acknowledged.withLock { $0 }).subtracting(stored)
        #expect(lost.isEmpty, "acknowledged events missing on the promoted standby: \(lost.sorted())")
        var duplicates = 0
        var alerts = 0
        for game in FaultBed.games {
            let verdict = try bed.verdict(game, home: newest, players: (1...newest).map { "\(game)-p\($0)" })
            #expect(verdict.newestStateShown && verdict.alertsLost.isEmpty && verdict.inOrder, "\(game): \(verdict)")
            duplicates += verdict.duplicates
            alerts += newest - verdict.alertsLost.count
        }
        // On the new primary: the workers' LISTEN and the poller's lead are back.
        let promoted = try await PostgresConnection.connect(configuration: pair.configuration(port: pair.standbyPort), logger: TestDatabase.logger)
        do {
            try await eventually("serve listens on the new primary") {
                try await !promoted.query("SELECT 1 FROM pg_stat_activity WHERE query LIKE 'LISTEN %' AND datname = 'postgres'").isEmpty
            }
            try await eventually("the poller leads from the new primary") {
                try await !promoted.query("""
                    SELECT 1 FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
                    WHERE l.locktype = 'advisory' AND l.granted AND a.application_name = 'scorecast-poller-leader'
                    """).isEmpty
            }
        } catch {
            await promoted.close()
            throw error
        }
        await promoted.close()
        let lastSend = FaultBed.games.compactMap { bed.accepted($0).last?.time }.max() ?? promotedAt
        print("\(report) | \(acknowledged.withLock { $0.count }) events acknowledged, \(lost.count) lost, \(alerts) of \(FaultBed.games.count * newest) goals announced, "
            + "\(refused) requests refused during the switch, \(duplicates) duplicate announcements, "
            + "last send \(String(format: "%.2f", lastSend - promotedAt)) s after the switch")
        await bed.stop(server)
    }

    /// The ids of goal `seq` of every game.
    private static func goals(_ seq: Int) -> [String] {
        FaultBed.games.map { "\($0)-\(seq)" }
    }

    /// Goal `seq` of every game, by player `<game>-p<seq>`, the score `seq`–0.
    private static func events(_ seq: Int) -> [String] {
        FaultBed.games.map { FaultBed.event($0, seq: seq, player: "\($0)-p\(seq)", home: seq) }
    }

    /// Posts `events` in one request and returns the status (0 when no answer came).
    private static func post(_ url: String, _ events: [String], key: String) async throws -> Int {
        let response = try? await TestClient.live(url).execute(
            .post, "/v1/events", headers: ["Authorization": "Bearer \(key)", "Content-Type": "application/json"],
            body: Array(#"{"events": [\#(events.joined(separator: ","))]}"#.utf8))
        return response?.status ?? 0
    }
}
