import APNsSimulator
import DeliveryEngine
import Foundation
import JSON
import Registry
import ScorecastLogging
import Postgres
import ScorecastCore
import Testing
import TestSupport

/// Coalescing merges state, never announcements: real ingest, real workers, the simulator over
/// HTTP/2 + TLS, and its request log as the witness.
@Suite struct AlertQueueTests {
    static func event(_ id: String, seq: Int, kind: String, player: String, home: Int, alert: Bool? = nil) -> String {
        let flag = alert.map { #", "alert": \#($0)"# } ?? ""
        return #"{"id": "\#(id)", "game": "g1", "seq": \#(seq), "occurredAt": "2025-11-29T20:10:00Z", "kind": "\#(kind)", "team": "home", "player": "\#(player)"\#(flag), "scoreboard": {"home": \#(home), "away": 0, "period": "1H", "clock": "\#(seq)'"}}"#
    }

    /// One accepted broadcast as the phone would read it.
    struct Seen: Equatable {
        var player: String?
        var homeScore: Int?
        var timestamp: Int
    }

    static func seen(_ request: SimulatorReceivedRequest) throws -> Seen {
        let aps = try #require(try JSONParser().parse(request.body)["aps"])
        let title = aps["alert"]?["title"]
        return Seen(
            // The player is the first name in the title (a goal's title leads with its minute, `1'`).
            player: title?["loc-args"]?.arrayValue?.compactMap(\.stringValue).first { !$0.hasSuffix("'") },
            homeScore: aps["content-state"]?["homeScore"]?.integerValue,
            timestamp: try #require(aps["timestamp"]?.integerValue))
    }

    static func setUp(_ harness: DeliveryHarness) async throws -> (channel: (id: Int64, apnsID: String), ingestor: EventIngestor) {
        let channel = try await harness.createChannel()
        try await harness.pool.execute("INSERT INTO games (id, home_team, away_team) VALUES ('g1', 'Arsenal', 'Chelsea')")
        try await harness.pool.execute("INSERT INTO channel_bindings (channel_id, game_id) VALUES (\(channel.id), 'g1')")
        let ingestor = EventIngestor(
            pool: harness.pool, settings: IngestSettings(shaping: ShapingPolicy(routineInterval: 0)),
            logger: Logger(label: "ingest", level: .warning))
        return (channel, ingestor)
    }

    static func ingest(_ ingestor: EventIngestor, _ events: [String]) async throws {
        let body = Array(#"{"events": [\#(events.joined(separator: ","))]}"#.utf8)
        let parsed = try FeedEventValidator().events(fromBody: body, now: Date())
        _ = try await ingestor.ingest(parsed, feed: "test")
    }

    @Test func twoGoalsAndACardInOnePostAreThreeAlertsInEventOrderWithTheNewestState() async throws {
        try await DeliveryHarness.with { harness in
            let (channel, ingestor) = try await Self.setUp(harness)
            // A lease far longer than the test: its heartbeat (every third of the lease) would be
            // one more outbox update if a send outlasted it, which a loaded machine can make happen.
            let workers = harness.makePool(harness.settings(workers: 2, lease: .seconds(3_600)))
            let before = try await OutboxWrites.count(harness.pool)
            try await harness.running(workers) {
                try await Self.ingest(ingestor, [
                    Self.event("goal-1", seq: 1, kind: "score", player: "Saka", home: 1),
                    Self.event("red-card", seq: 2, kind: "card", player: "Rice", home: 1, alert: true),
                    Self.event("goal-2", seq: 3, kind: "score", player: "Odegaard", home: 2),
                ])
                try await eventually("the alerts are sent") { try await harness.outboxCount() == 0 }
            }
            let accepted = harness.broadcasts(to: channel.apnsID).filter { $0.status == 200 }
            let seen = try accepted.map(Self.seen)
            #expect(seen.map(\.player) == ["Saka", "Rice", "Odegaard"], "\(seen)")
            #expect(seen.allSatisfy { $0.homeScore == 2 }, "each alert rides on the newest state: \(seen)")
            #expect(zip(seen, seen.dropFirst()).allSatisfy { $0.timestamp < $1.timestamp }, "the device keeps each one: \(seen)")
            #expect(accepted.allSatisfy { $0.header("apns-priority") == "10" })
            #expect(workers.statistics.alertsSent == 3)
            #expect(workers.statistics.alertsDropped == 0)
            let writes = try await OutboxWrites.count(harness.pool) - before
            // One outbox insert by ingest; per send one claim update; per alert after the first one
            // fenced update that removes the sent alert; the last send deletes the row.
            #expect(writes == OutboxWrites(inserted: 1, updated: 3 + 2, deleted: 1), "\(writes)")
        }
    }

    @Test func twoGoalsFiveMillisecondsApartAreTwoAlertsInOrder() async throws {
        try await DeliveryHarness.with { harness in
            let (channel, ingestor) = try await Self.setUp(harness)
            try harness.simulator.setFaults(SimulatorFaults(latencyMilliseconds: 20))
            let workers = harness.makePool(harness.settings(workers: 2))
            try await harness.running(workers) {
                try await Self.ingest(ingestor, [Self.event("goal-1", seq: 1, kind: "score", player: "Saka", home: 1)])
                try await Task.sleep(for: .milliseconds(5))
                try await Self.ingest(ingestor, [Self.event("goal-2", seq: 2, kind: "score", player: "Odegaard", home: 2)])
                try await eventually("the alerts are sent") { try await harness.outboxCount() == 0 }
            }
            let seen = try harness.broadcasts(to: channel.apnsID).filter { $0.status == 200 }.map(Self.seen)
            let alerts = seen.filter { $0.player != nil }
            #expect(alerts.map(\.player) == ["Saka", "Odegaard"], "\(seen)")
            #expect(alerts.last?.homeScore == 2)
            #expect(seen.last?.homeScore == 2, "the last accepted payload carries the newest state")
            #expect(alerts.first.map { $0.homeScore == 1 || $0.homeScore == 2 } == true)
            #expect(zip(seen, seen.dropFirst()).allSatisfy { $0.timestamp <= $1.timestamp })
        }
    }
}

/// Row writes to `outbox`, counted exactly by a test-only trigger that logs each one.
struct OutboxWrites: Equatable, CustomStringConvertible {
    var inserted: Int
    var updated: Int
    var deleted: Int

    static func - (lhs: OutboxWrites, rhs: OutboxWrites) -> OutboxWrites {
        OutboxWrites(inserted: lhs.inserted - rhs.inserted, updated: lhs.updated - rhs.updated, deleted: lhs.deleted - rhs.deleted)
    }

    var description: String { "inserted \(inserted), updated \(updated), deleted \(deleted)" }

    /// Installs the counting trigger (once per schema) and returns the counts so far.
    static func count(_ pool: PostgresPool) async throws -> OutboxWrites {
        _ = try await pool.execute("CREATE TABLE IF NOT EXISTS outbox_write_log (op text NOT NULL)")
        _ = try await pool.execute("""
            CREATE OR REPLACE FUNCTION outbox_write_logged() RETURNS trigger LANGUAGE plpgsql AS
                $$ BEGIN INSERT INTO outbox_write_log VALUES (TG_OP); RETURN NULL; END $$
            """)
        _ = try await pool.execute("""
            CREATE OR REPLACE TRIGGER outbox_write_counted AFTER INSERT OR UPDATE OR DELETE ON outbox
                FOR EACH ROW EXECUTE FUNCTION outbox_write_logged()
            """)
        let row = try await pool.query("""
            SELECT count(*) FILTER (WHERE op = 'INSERT')::int8 AS i, count(*) FILTER (WHERE op = 'UPDATE')::int8 AS u,
                   count(*) FILTER (WHERE op = 'DELETE')::int8 AS d
            FROM outbox_write_log
            """)[0]
        return OutboxWrites(inserted: try row.decode("i"), updated: try row.decode("u"), deleted: try row.decode("d"))
    }
}
