import APNsCore
import Clocks
import Delivery
import DeliveryEngine
import Foundation
import Postgres
import Registry
import ScorecastCore
import ScorecastLogging
import Testing
import TestSupport

/// The hand-off: in a process that ingests and sends, a goal is leased to its own workers inside
/// the ingest transaction and handed over in memory. The row stays the durable record: what the
/// process does not send, another takes over when the lease runs out.
@Suite struct AlertHandOffTests {
    private static let lease = Duration.seconds(30)

    /// A goal reaches APNs through the hand-off, without a claim: the row is leased to the
    /// hand-off from the moment ingest commits (so no claim can take it while the clock stands
    /// still), and the workers' linger and poll are far longer than the hang deadline.
    @Test func aGoalIsHandedToTheProcesssWorkersAndSentWithoutAClaim() async throws {
        try await DeliveryHarness.with { harness in
            let goal = try await Self.channelOfGame(harness)
            let clock = ManualServiceClock(Date())
            var settings = harness.ownNotifyChannel(harness.settings(poll: .seconds(600)))
            settings.claimLinger = .seconds(600)
            let handOff = AlertHandOff(ownerPrefix: "ingesting", lease: Self.lease, capacity: 8)
            let workers = harness.makePool(settings, handOff: handOff, clock: clock)
            try await harness.running(workers) {
                // The workers' first claim found nothing: what comes next is a goal.
                try await eventually("the first claim is over") { workers.statistics.emptyClaims + workers.statistics.claimsSkipped >= 1 }
                _ = try await Self.ingestor(harness, clock: clock, handOff: handOff).ingest(try Self.goal(), feed: "test")
                try await eventually("the goal is sent") { try await harness.outboxCount() == 0 }
            }
            let sent = try #require(harness.broadcasts(to: goal.apnsID).first)
            #expect(sent.status == 200)
            #expect(sent.header("apns-priority") == "10")
            #expect(sent.body.contains("\"homeScore\":1"), "\(sent.body)")
            #expect(workers.statistics.handedOver == 1)
            #expect(workers.statistics.claimed == 1)
            #expect(try await harness.database.deliveries(goal.id).map(\.outcome) == ["sent"])
        }
    }

    /// The process dies after ingest committed and before its workers took the goal: the row
    /// waits, leased as a claim leases it, and any worker sends it once the lease runs out.
    @Test func aGoalHandedToAProcessThatDiedIsSentWhenItsLeaseRunsOut() async throws {
        try await DeliveryHarness.with { harness in
            let goal = try await Self.channelOfGame(harness)
            let start = Date()
            let clock = ManualServiceClock(start)
            // Nobody takes from this hand-off: its process is gone.
            let handOff = AlertHandOff(ownerPrefix: "dead-process", lease: Self.lease, capacity: 8)
            _ = try await Self.ingestor(harness, clock: clock, handOff: handOff).ingest(try Self.goal(), feed: "test")

            let row = try #require(try await harness.database.outbox(goal.id))
            #expect(row.leaseOwner == "dead-process/handoff")
            #expect(row.claimedVersion == row.version)
            let expiry = try #require(row.leaseExpiresAt)
            #expect(abs(expiry.timeIntervalSince(start.adding(Self.lease))) < 0.000_01, "\(expiry)")
            let store = OutboxStore(pool: harness.pool, logger: Logger(label: "store", level: .error))
            #expect(try await store.claim(owner: "survivor/w0", limit: 8, lease: Self.lease, at: clock.now()).isEmpty,
                    "the lease holds while it has not run out")

            clock.advance(by: Self.lease + .seconds(1))
            let workers = harness.makePool(harness.settings(), ownerPrefix: "survivor", clock: clock)
            try await harness.running(workers) {
                try await eventually("the goal is sent by the survivor") { try await harness.outboxCount() == 0 }
            }
            #expect(harness.broadcasts(to: goal.apnsID).map(\.status) == [200])
            #expect(workers.statistics.handedOver == 0)
            #expect(try await harness.database.deliveries(goal.id).map(\.outcome) == ["sent"])
        }
    }

    /// A goal for a channel whose last update is on its way (a worker holds the row) does not
    /// take the row from that worker: it waits behind the send, and nothing is handed over.
    @Test func aGoalForARowInFlightLeavesTheSendersLease() async throws {
        try await DeliveryHarness.with { harness in
            let goal = try await Self.channelOfGame(harness)
            let clock = ManualServiceClock(Date())
            let store = OutboxStore(pool: harness.pool, logger: Logger(label: "store", level: .error))
            let handOff = AlertHandOff(ownerPrefix: "ingesting", lease: Self.lease, capacity: 8)
            let ingestor = Self.ingestor(harness, clock: clock, handOff: nil)
            _ = try await ingestor.ingest(try Self.goal(), feed: "test")
            let inFlight = try await store.claim(owner: "sender/w0", limit: 8, lease: Self.lease, at: clock.now())
            #expect(inFlight.map(\.channelID) == [goal.id])

            _ = try await Self.ingestor(harness, clock: clock, handOff: handOff).ingest(try Self.goal(id: "goal-2", home: 2, seq: 2), feed: "test")
            let row = try #require(try await harness.database.outbox(goal.id))
            #expect(row.leaseOwner == "sender/w0")
            #expect(row.version == 2)
            #expect(row.claimedVersion == 1)
            #expect(handOff.take(limit: 8).isEmpty)
        }
    }

    /// What ingest may lease: alerting rows due now of leasable channels, in channel order, as
    /// many as the hand-off has room for; none once it is closed.
    @Test func ingestLeasesOnlyAlertingRowsDueNowAndOnlyAsManyAsThereIsRoomFor() throws {
        let now = Date(timeIntervalSince1970: 1_750_000_000)
        func write(_ channelID: Int64, alerting: Bool, dueIn seconds: Double = 0) -> OutboxWrite {
            var payload = LiveActivityPayload(timestamp: 1_750_000_000, event: .update, contentState: ["homeScore": 1])
            if alerting { payload.alert = LiveActivityAlert(title: .plain("Goal"), body: .plain("1-0")) }
            let update = RenderedUpdate(
                payload: payload, body: [], priority: alerting ? .immediate : .opportunistic, isAlerting: alerting, eventID: "\(channelID)")
            return OutboxWrite(
                channelID: channelID, expectedVersion: 0, entry: OutboxEntry(update: update, dueAt: now.addingTimeInterval(seconds), now: now),
                replacesLeased: false)
        }
        let writes = [write(1, alerting: true), write(2, alerting: false), write(3, alerting: true, dueIn: 10),
                      write(4, alerting: true), write(5, alerting: true), write(6, alerting: true)]
        #expect(AlertHandOff.rowsToLease(writes, leasable: [1, 2, 3, 4, 6], room: 8, now: now) == [1, 4, 6])
        #expect(AlertHandOff.rowsToLease(writes, leasable: [1, 2, 3, 4, 6], room: 2, now: now) == [1, 4])

        let handOff = AlertHandOff(ownerPrefix: "p", lease: .seconds(10), capacity: 3)
        #expect(handOff.owner == "p/handoff")
        handOff.handOver([1, 4])
        #expect(handOff.room() == 1)
        #expect(handOff.take(limit: 1) == [1])
        #expect(handOff.room() == 2)
        #expect(handOff.close() == [4])
        #expect(handOff.room() == 0)
        handOff.handOver([7])
        #expect(handOff.take(limit: 8).isEmpty)
    }

    // MARK: - Support

    /// A channel of the harness's app bound to game `g1`.
    private static func channelOfGame(_ harness: DeliveryHarness) async throws -> (id: Int64, apnsID: String) {
        let channel = try await harness.createChannel()
        try await harness.pool.execute("INSERT INTO games (id, home_team, away_team) VALUES ('g1', 'Arsenal', 'Chelsea')")
        try await harness.pool.execute("INSERT INTO channel_bindings (channel_id, game_id) VALUES (\(channel.id), 'g1')")
        return channel
    }

    private static func ingestor(_ harness: DeliveryHarness, clock: ManualServiceClock, handOff: AlertHandOff?) -> EventIngestor {
        EventIngestor(
            pool: harness.pool, settings: IngestSettings(shaping: ShapingPolicy(routineInterval: 0)),
            logger: Logger(label: "ingest", level: .warning), clock: clock, handOff: handOff)
    }

    private static func goal(id: String = "goal-1", home: Int = 1, seq: Int = 1) throws -> [FeedEvent] {
        let body = #"{"id": "\#(id)", "game": "g1", "seq": \#(seq), "occurredAt": "2025-11-29T20:10:00Z", "kind": "score", "team": "home", "scoreboard": {"home": \#(home), "away": 0, "period": "1H", "clock": "10'"}}"#
        return try FeedEventValidator().events(fromBody: Array(body.utf8), now: Date())
    }
}
