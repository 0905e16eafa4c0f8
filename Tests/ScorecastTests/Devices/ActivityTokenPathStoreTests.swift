import Clocks
import DeliveryEngine
@testable import Devices
import Foundation
import Postgres
@testable import Registry
import ScorecastCore
@testable import ServiceBase
import Testing

/// The token path's store against real Postgres: what its statements apply of the rules
/// ``ActivityUpdateMerge`` and ``ActivityUpdateSettlement`` decide. Sends are not made here:
/// each test hands the completion the answers it would have had.
@Suite struct ActivityTokenPathStoreTests {
    static let now = Date(timeIntervalSince1970: 1_795_993_200)

    /// The token path, a feed, and one activity token per entry of `tokens` on game `g1`.
    struct Harness {
        let fixture: RegistryFixture
        let path: ActivityTokenPath
        let ingestor: EventIngestor
        var tokenIDs: [Int64] = []

        init(_ fixture: RegistryFixture, tokens: [Int]) async throws {
            self.fixture = fixture
            _ = try await fixture.addApp(environment: .sandbox)
            try await fixture.addGame("g1")
            let store = DeviceStore(pool: fixture.pool)
            for token in tokens {
                let (device, _) = try await store.register(bundleID: "com.example.scores", installID: "d\(token)", DeviceRegistration(
                    environment: .sandbox, pushToStartToken: nil, osVersion: OSVersion(major: 17, minor: 4), osVersionText: "17.4",
                    frequentUpdates: true, locale: "en"))
                _ = try await store.registerActivityToken(deviceID: device.id, gameID: "g1", token: AppAPIHarness.token(token))
            }
            tokenIDs = try await fixture.pool.query("SELECT id FROM activity_tokens ORDER BY id").map { try $0.decode("id") }
            ingestor = EventIngestor(pool: fixture.pool, settings: IngestSettings(), logger: RegistryFixture.logger)
            path = ActivityTokenPath(
                pool: fixture.pool, apns: fixture.client, credentials: CredentialStore(), staleness: StalenessPolicy(), batch: 10,
                budget: ActivityBudget(profiles: BudgetProfiles(standardPerHour: 12, frequentPerHour: 60), finalReserve: 1), metrics: nil,
                logger: RegistryFixture.logger, clock: ManualServiceClock(ActivityTokenPathStoreTests.now))
        }

        /// Ingests one feed event and queues it for the tokens at `at`.
        func post(_ json: String, at: Date = ActivityTokenPathStoreTests.now) async throws {
            _ = try await ingestor.ingest(try FeedEventValidator().events(fromBody: Array(json.utf8), now: at.addingTimeInterval(7_200)), feed: "test")
            try await path.queueUpdates(now: at)
        }

        func row(_ tokenID: Int64) async throws -> PostgresRow? {
            try await fixture.pool.query("""
                SELECT version, payload, priority, alerting, due_at, attempts, last_error, lease_owner FROM activity_outbox
                WHERE activity_token_id = \(tokenID)
                """).first
        }

        static func aps(_ row: PostgresRow) throws -> [String: Any] {
            let payload = try JSONSerialization.jsonObject(with: try row.decode("payload", as: Data.self)) as? [String: Any]
            return try #require(payload?["aps"] as? [String: Any])
        }

        static func clockLabel(_ aps: [String: Any]) -> String? {
            ((aps["content-state"] as? [String: Any])?["clock"] as? [String: Any])?["label"] as? String
        }
    }

    static let goal = #"{"id":"s1","game":"g1","seq":1,"occurredAt":"2026-11-29T20:07:00Z","kind":"score","team":"home","player":"Saka","scoreboard":{"home":1}}"#
    static func tick(_ seq: Int, minute: Int) -> String {
        let at = String(format: "2026-11-29T20:%02d:00Z", minute)
        return #"{"id":"c\#(seq)","game":"g1","seq":\#(seq),"occurredAt":"\#(at)","kind":"clock","scoreboard":{"clock":"\#(minute)'"}}"#
    }

    @Test func anAlertInFlightIsNotCopiedOntoTheNewerStateAndItsPriorityStays() async throws {
        try await RegistryFixture.with { fixture in
            let harness = try await Harness(fixture, tokens: [1])
            try await harness.post(Self.goal)
            let claimed = try await harness.path.claim(owner: "w1", lease: .seconds(60), now: Self.now)
            #expect(claimed.map(\.version) == [1])
            try await harness.post(Self.tick(2, minute: 8), at: Self.now.addingTimeInterval(1))

            let row = try #require(try await harness.row(harness.tokenIDs[0]))
            let aps = try Harness.aps(row)
            #expect(aps["alert"] == nil, "the send under way carries the goal's alert")
            #expect(Harness.clockLabel(aps) == "8'")
            #expect(try row.decode("version", as: Int64.self) == 2)
            #expect(try row.decode("priority", as: Int16.self) == 10)
            #expect(try row.decode("alerting", as: Bool.self))
            #expect(try row.decode("due_at", as: Date.self) == Self.now, "the earlier due time")
            #expect(try row.decode("lease_owner", as: String?.self) == "w1", "queueing leaves the lease alone")
        }
    }

    /// A row left alerting without an alert in its payload (its alert went out with a send
    /// that is then retried) used to make every later queueing of the game fail.
    @Test func anUpdateQueuedAfterARetriedSendOfAnAlertIsWritten() async throws {
        try await RegistryFixture.with { fixture in
            let harness = try await Harness(fixture, tokens: [1])
            try await harness.post(Self.goal)
            let claimed = try await harness.path.claim(owner: "w1", lease: .seconds(60), now: Self.now)
            try await harness.post(Self.tick(2, minute: 8), at: Self.now.addingTimeInterval(1))
            let answers = claimed.map { ActivityTokenPath.Outcome(claimed: $0, verdict: .retry(reason: "InternalServerError"), retryAfter: nil) }
            try await harness.path.complete(answers, owner: "w1", now: Self.now.addingTimeInterval(2))
            try await harness.post(Self.tick(3, minute: 9), at: Self.now.addingTimeInterval(3))

            let row = try #require(try await harness.row(harness.tokenIDs[0]))
            #expect(Harness.clockLabel(try Harness.aps(row)) == "9'")
            #expect(try row.decode("version", as: Int64.self) == 3)
            #expect(try row.decode("priority", as: Int16.self) == 10)
        }
    }

    /// A goal's send that APNs answers with a retryable failure, after a newer state replaced
    /// the row during the send: the goal's alert is no longer on its way, so it rides on the
    /// newer state (it used to be lost with the older payload).
    @Test func aRetriedAlertRidesOnTheNewerStateThatReplacedItDuringTheSend() async throws {
        try await RegistryFixture.with { fixture in
            let harness = try await Harness(fixture, tokens: [1])
            try await harness.post(Self.goal)
            let claimed = try await harness.path.claim(owner: "w1", lease: .seconds(60), now: Self.now)
            let goalRow = try #require(try await harness.row(harness.tokenIDs[0]))
            let goalAlert = try #require(try Harness.aps(goalRow)["alert"] as? [String: Any])
            try await harness.post(Self.tick(2, minute: 8), at: Self.now.addingTimeInterval(1))
            let answers = claimed.map { ActivityTokenPath.Outcome(claimed: $0, verdict: .retry(reason: "InternalServerError"), retryAfter: nil) }
            try await harness.path.complete(answers, owner: "w1", now: Self.now.addingTimeInterval(2))

            let row = try #require(try await harness.row(harness.tokenIDs[0]))
            let aps = try Harness.aps(row)
            #expect(Harness.clockLabel(aps) == "8'", "the newer state")
            let alert = try #require(aps["alert"] as? [String: Any], "the goal's alert rides on it: \(aps)")
            #expect(NSDictionary(dictionary: alert).isEqual(to: goalAlert))
            #expect(try row.decode("alerting", as: Bool.self))
            #expect(try row.decode("priority", as: Int16.self) == 10)
            #expect(try row.decode("attempts", as: Int32.self) == 0)
            #expect(try row.decode("due_at", as: Date.self) == Self.now, "due at once")
            #expect(try row.decode("lease_owner", as: String?.self) == nil)
            #expect(try row.decode("last_error", as: String?.self) == "InternalServerError")
        }
    }

    /// A sender that died with a goal leased holds nothing once its lease has run out: a newer
    /// state then takes the goal's alert with it, as it would from any pending update.
    @Test func aGoalWhoseSendersLeaseRanOutRidesOnTheNewerState() async throws {
        try await RegistryFixture.with { fixture in
            let harness = try await Harness(fixture, tokens: [1])
            try await harness.post(Self.goal)
            _ = try await harness.path.claim(owner: "dead", lease: .seconds(60), now: Self.now)
            try await harness.post(Self.tick(2, minute: 8), at: Self.now.addingTimeInterval(61))

            let row = try #require(try await harness.row(harness.tokenIDs[0]))
            let aps = try Harness.aps(row)
            #expect(Harness.clockLabel(aps) == "8'")
            #expect(aps["alert"] != nil, "the goal's alert rides on the newer state: \(aps)")
            #expect(try row.decode("version", as: Int64.self) == 2)
        }
    }

    /// The same, refused for good: the alert is not carried.
    @Test func anAlertRefusedForGoodDoesNotRideOnTheNewerState() async throws {
        try await RegistryFixture.with { fixture in
            let harness = try await Harness(fixture, tokens: [1])
            try await harness.post(Self.goal)
            let claimed = try await harness.path.claim(owner: "w1", lease: .seconds(60), now: Self.now)
            try await harness.post(Self.tick(2, minute: 8), at: Self.now.addingTimeInterval(1))
            let answers = claimed.map { ActivityTokenPath.Outcome(claimed: $0, verdict: .fail(reason: "PayloadTooLarge"), retryAfter: nil) }
            try await harness.path.complete(answers, owner: "w1", now: Self.now.addingTimeInterval(2))

            let row = try #require(try await harness.row(harness.tokenIDs[0]))
            let aps = try Harness.aps(row)
            #expect(Harness.clockLabel(aps) == "8'")
            #expect(aps["alert"] == nil)
            #expect(try row.decode("lease_owner", as: String?.self) == nil)
        }
    }

    @Test func aCompletionWhoseRowChangedDuringTheSendKeepsTheNewerUpdateDue() async throws {
        try await RegistryFixture.with { fixture in
            let harness = try await Harness(fixture, tokens: [1])
            let tokenID = harness.tokenIDs[0]
            try await harness.post(Self.goal)
            let claimed = try await harness.path.claim(owner: "w1", lease: .seconds(60), now: Self.now)
            let goalTimestamp = try #require(claimed.first).timestamp
            try await harness.post(Self.tick(2, minute: 8), at: Self.now.addingTimeInterval(1))
            let answers = claimed.map { ActivityTokenPath.Outcome(claimed: $0, verdict: .delivered, retryAfter: nil, immediate: true) }
            try await harness.path.complete(answers, owner: "w1", now: Self.now.addingTimeInterval(2))

            let row = try #require(try await harness.row(tokenID), "the newer update stays")
            #expect(try row.decode("version", as: Int64.self) == 2)
            #expect(try row.decode("lease_owner", as: String?.self) == nil, "given back at once, not left leased until the lease runs out")
            #expect(try row.decode("attempts", as: Int32.self) == 0, "its own attempts start afresh")
            #expect(try row.decode("due_at", as: Date.self) == Self.now, "still due")
            #expect(try row.decode("last_error", as: String?.self) == nil)
            let token = try #require(try await fixture.pool.query("SELECT last_timestamp FROM activity_tokens WHERE id = \(tokenID)").first)
            #expect(try token.decode("last_timestamp", as: Int64.self) == goalTimestamp)
            let spent = try await fixture.pool.query("SELECT sent_at FROM activity_priority_sends").map { try $0.decode("sent_at", as: Date.self) }
            #expect(spent == [Self.now.addingTimeInterval(2)])

            let next = try await harness.path.claim(owner: "w2", lease: .seconds(60), now: Self.now.addingTimeInterval(2))
            #expect(next.map(\.version) == [2], "claimed again right away")
            #expect(next.map(\.attempts) == [1])
        }
    }

    @Test func aBatchsCompletionsAreWrittenTogetherAndOnlyWhileItsOwnerHoldsTheRows() async throws {
        try await RegistryFixture.with { fixture in
            let harness = try await Harness(fixture, tokens: [1, 2, 3, 4])
            let ids = harness.tokenIDs
            try await harness.post(Self.goal)
            let claimed = try await harness.path.claim(owner: "w1", lease: .seconds(60), now: Self.now)
            #expect(claimed.map(\.tokenID).sorted() == ids)
            // The fourth row's lease ran out and another worker took it.
            try await fixture.pool.execute("UPDATE activity_outbox SET lease_owner = 'w2' WHERE activity_token_id = \(ids[3])")
            let byToken = Dictionary(uniqueKeysWithValues: claimed.map { ($0.tokenID, $0) })
            let answers = [
                ActivityTokenPath.Outcome(claimed: try #require(byToken[ids[0]]), verdict: .delivered, retryAfter: nil, downgraded: true),
                ActivityTokenPath.Outcome(claimed: try #require(byToken[ids[1]]), verdict: .retry(reason: "TooManyRequests"), retryAfter: 30),
                ActivityTokenPath.Outcome(claimed: try #require(byToken[ids[2]]), verdict: .pruneToken(reason: "Unregistered"), retryAfter: nil),
                ActivityTokenPath.Outcome(claimed: try #require(byToken[ids[3]]), verdict: .delivered, retryAfter: nil),
            ]
            let completedAt = Self.now.addingTimeInterval(2)
            try await harness.path.complete(answers, owner: "w1", now: completedAt)

            #expect(try await harness.row(ids[0]) == nil, "delivered: deleted")
            let retried = try #require(try await harness.row(ids[1]))
            #expect(try retried.decode("lease_owner", as: String?.self) == nil)
            #expect(try retried.decode("due_at", as: Date.self) == completedAt.addingTimeInterval(30), "Retry-After from the completion's time")
            #expect(try retried.decode("attempts", as: Int32.self) == 1)
            #expect(try retried.decode("last_error", as: String?.self) == "TooManyRequests")
            #expect(try await harness.row(ids[2]) == nil, "dead token: deleted")
            let other = try #require(try await harness.row(ids[3]), "a row another worker holds is not written")
            #expect(try other.decode("lease_owner", as: String?.self) == "w2")

            let tokens = try await fixture.pool.query("SELECT id, status, pruned_reason, last_timestamp, downgraded FROM activity_tokens ORDER BY id")
            #expect(try tokens.map { try $0.decode("status", as: String.self) } == ["active", "active", "pruned", "active"])
            #expect(try tokens[2].decode("pruned_reason", as: String?.self) == "Unregistered")
            #expect(try tokens[0].decode("last_timestamp", as: Int64.self) == byToken[ids[0]]?.timestamp)
            #expect(try tokens.map { try $0.decode("downgraded", as: Int32.self) } == [1, 0, 0, 0])
            #expect(try tokens[1].decode("last_timestamp", as: Int64.self) == 0)
            #expect(try await fixture.pool.query("SELECT 1 FROM activity_priority_sends").isEmpty, "a downgraded send spends no budget")
        }
    }
}
