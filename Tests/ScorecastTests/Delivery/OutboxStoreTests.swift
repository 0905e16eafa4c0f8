import Delivery
import DeliveryEngine
import Foundation
import Postgres
import ScorecastCore
import TestSupport
import Testing

/// The claim and completion SQL against a real Postgres, one schema per test. The store's time
/// is always the caller's: each test reads it once its rows are written (their due times come
/// from Postgres' `now()`) and passes that one reading to every call that should share it.
@Suite struct OutboxStoreTests {
    private static func store(_ database: DeliveryDatabase) -> OutboxStore {
        OutboxStore(pool: database.pool, logger: TestDatabase.logger)
    }

    private static func failed(_ claim: ClaimedDelivery, _ action: OutboxSettlement.Action, outcome: DeliveryOutcome, status: Int, reason: String) -> DeliveryCompletion {
        DeliveryCompletion(
            channelID: claim.channelID, claimedVersion: claim.version, appID: claim.app.id, action: action,
            delivery: DeliveryRecord(
                eventIDs: claim.eventIDs, outboxVersion: claim.version, requestedPriority: claim.requestedPriority,
                priority: claim.requestedPriority, downgraded: false, coalesced: claim.coalesced, attempt: claim.attempt,
                outcome: outcome, statusCode: status, reason: reason, apnsRequestID: nil, apnsUniqueID: nil,
                apnsLatencyMilliseconds: 2, ingestToSendMilliseconds: 4),
            sentTimestamp: nil, claimedEventIDs: claim.eventIDs, claimedCoalesced: claim.coalesced,
            claimedAt: claim.claimedAt)
    }

    @Test func claimReturnsDueRowsWithChannelAppAndBudgetAndLeasesThem() async throws {
        try await DeliveryDatabase.with { database in
            let app = try await database.addApp(frequentUpdates: true, budgetPerHour: 7)
            let channel = try await database.addChannel(appID: app, apnsChannelID: "dGVzdA==", storagePolicy: 1)
            let payload = DeliveryDatabase.payload(score: 2, timestamp: 1_700_000_000)
            try await database.enqueue(channelID: channel, payload: payload, timestamp: 1_700_000_000, priority: 10, eventID: 41)
            // The claim's time, in whole seconds (as Postgres keeps them) and after the row fell due.
            let now = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.up) + 1)
            try await database.pool.execute("""
                INSERT INTO budget_ledger (channel_id, at, kind, limit_after, barred_until)
                VALUES (\(channel), \(now.addingTimeInterval(-7200)), 'throttled', 5, \(now.addingTimeInterval(-7100))),
                       (\(channel), \(now.addingTimeInterval(-3600)), 'priority10', NULL, NULL),
                       (\(channel), \(now.addingTimeInterval(-600)), 'priority10', NULL, NULL),
                       (\(channel), \(now.addingTimeInterval(-400)), 'throttled', 3, \(now.addingTimeInterval(30)))
                """)

            let claims = try await Self.store(database).claim(owner: "w-1", limit: 10, lease: .seconds(30), at: now)
            #expect(claims.count == 1)
            let claim = try #require(claims.first)
            #expect(claim.channelID == channel)
            #expect(claim.version == 1)
            #expect(claim.payload == payload)
            #expect(claim.payloadTimestamp == 1_700_000_000)
            #expect(claim.requestedPriority == .immediate)
            #expect(claim.eventIDs == [41])
            #expect(claim.attempt == 1)
            #expect(claim.leaseOwner == "w-1")
            #expect(claim.apnsChannelID == "dGVzdA==")
            #expect(claim.storagePolicy == .mostRecentMessageStored)
            #expect(claim.app == DeliveryApp(
                id: app, bundleID: "com.example.scores", environment: .sandbox, teamID: "TEAM000001", keyID: "KEY0000001",
                keyPath: "/nonexistent/key.p8", frequentUpdates: true, budgetPerHour: 7))
            // The ledger of the hour ending at the claim's time (the send an hour ago has left
            // it), and the latest 429.
            #expect(claim.budget == ChannelBudget(
                immediateSends: [now.addingTimeInterval(-600)], throttles: [now.addingTimeInterval(-400)],
                lastThrottle: ChannelBudget.Throttle(at: now.addingTimeInterval(-400), limitAfter: 3, barredUntil: now.addingTimeInterval(30))))

            let row = try #require(try await database.outbox(channel))
            #expect(row.leaseOwner == "w-1")
            #expect(row.claimedVersion == 1)
            let expires = try #require(row.leaseExpiresAt)
            // 30 s after the claim's time, which the caller passed in (no other clock decides).
            #expect(expires == now.addingTimeInterval(30), "\(expires)")
        }
    }

    @Test func claimSkipsWhatIsNotSendableNow() async throws {
        try await DeliveryDatabase.with { database in
            let app = try await database.addApp()
            let pausedApp = try await database.addApp(bundleID: "com.example.paused")
            try await database.pool.execute("UPDATE apps SET paused_at = now(), paused_reason = 'test' WHERE id = \(pausedApp)")
            let due = try await database.addChannel(appID: app)
            let later = try await database.addChannel(appID: app)
            let backingOff = try await database.addChannel(appID: app)
            let leased = try await database.addChannel(appID: app)
            let expired = try await database.addChannel(appID: app)
            let gone = try await database.addChannel(appID: app, status: "gone")
            let deleted = try await database.addChannel(appID: app, status: "deleted")
            let retiring = try await database.addChannel(appID: app, status: "retiring")
            let ofPausedApp = try await database.addChannel(appID: pausedApp)
            let excluded = try await database.addChannel(appID: app)
            let body = DeliveryDatabase.payload(score: 1, timestamp: 1)
            for channel in [due, later, backingOff, leased, expired, gone, deleted, retiring, ofPausedApp, excluded] {
                try await database.enqueue(channelID: channel, payload: body, timestamp: 1, dueIn: channel == later ? 60 : -1)
            }
            try await database.pool.execute("UPDATE outbox SET not_before = now() + interval '1 minute' WHERE channel_id = \(backingOff)")
            try await database.pool.execute("""
                UPDATE outbox SET lease_owner = 'other', lease_expires_at = now() + interval '1 minute' WHERE channel_id = \(leased)
                """)
            try await database.pool.execute("""
                UPDATE outbox SET lease_owner = 'dead', lease_expires_at = now() - interval '1 second' WHERE channel_id = \(expired)
                """)

            let now = Date()
            let claims = try await Self.store(database).claim(owner: "w", limit: 100, lease: .seconds(5), excluding: [excluded], at: now)
            #expect(Set(claims.map(\.channelID)) == [due, expired, retiring])
            #expect(try await database.outbox(leased)?.leaseOwner == "other")
            #expect(try await database.outbox(expired)?.leaseOwner == "w")
            // Everything claimable is now leased: a second claim finds nothing.
            #expect(try await Self.store(database).claim(owner: "w2", limit: 100, lease: .seconds(5), excluding: [excluded], at: now).isEmpty)
        }
    }

    @Test func claimHonoursTheLimitOldestDueFirst() async throws {
        try await DeliveryDatabase.with { database in
            let app = try await database.addApp()
            var channels: [Int64] = []
            for index in 0..<5 {
                let channel = try await database.addChannel(appID: app)
                try await database.enqueue(channelID: channel, payload: [1], timestamp: 1, dueIn: -Double(10 - index))
                channels.append(channel)
            }
            let now = Date()
            let claims = try await Self.store(database).claim(owner: "w", limit: 3, lease: .seconds(5), at: now)
            #expect(claims.map(\.channelID) == Array(channels.prefix(3)))
        }
    }

    @Test func claimTakesDueAlertingRowsBeforeOlderRoutineOnes() async throws {
        try await DeliveryDatabase.with { database in
            let app = try await database.addApp()
            var routine: [Int64] = []
            for index in 0..<4 {
                let channel = try await database.addChannel(appID: app)
                try await database.enqueue(channelID: channel, payload: [1], timestamp: 1, priority: 5, alerting: false, dueIn: -Double(20 - index))
                routine.append(channel)
            }
            let goal = try await database.addChannel(appID: app)
            try await database.enqueue(channelID: goal, payload: [1], timestamp: 1, dueIn: -1)
            let later = try await database.addChannel(appID: app)
            try await database.enqueue(channelID: later, payload: [1], timestamp: 1, dueIn: 30)
            let now = Date()
            let claims = try await Self.store(database).claim(owner: "w", limit: 3, lease: .seconds(5), at: now)
            #expect(claims.map(\.channelID) == [goal] + routine.prefix(2), "the goal first, then routine rows oldest due first")
        }
    }

    @Test func concurrentClaimsNeverShareARow() async throws {
        try await DeliveryDatabase.with(maxConnections: 10) { database in
            let app = try await database.addApp()
            let inserted = try await database.pool.query("""
                WITH made AS (
                    INSERT INTO channels (apns_channel_id, app_id, storage_policy)
                    SELECT 'c' || n, \(app), 0 FROM generate_series(1, 200) AS n
                    RETURNING id
                )
                INSERT INTO outbox (channel_id, payload, payload_timestamp, priority, event_ids, first_ingested_at, due_at)
                SELECT id, '\\x01'::bytea, 1, 10, '{}', now(), now() - interval '1 second' FROM made
                RETURNING channel_id
                """)
            let all = Set(try inserted.map { try $0.decode("channel_id", as: Int64.self) })
            #expect(all.count == 200)
            let store = Self.store(database)
            let now = Date()
            let perOwner = try await withThrowingTaskGroup(of: [Int64].self) { group in
                for owner in 0..<8 {
                    group.addTask {
                        var mine: [Int64] = []
                        while true {
                            let claims = try await store.claim(owner: "w\(owner)", limit: 7, lease: .seconds(30), at: now)
                            if claims.isEmpty { return mine }
                            mine += claims.map(\.channelID)
                        }
                    }
                }
                var lists: [[Int64]] = []
                for try await list in group { lists.append(list) }
                return lists
            }
            let flat = perOwner.flatMap { $0 }
            #expect(flat.count == 200)
            #expect(Set(flat) == all)
        }
    }

    @Test func successDeletesTheRowAndRecordsTheDelivery() async throws {
        try await DeliveryDatabase.with { database in
            let app = try await database.addApp()
            let channel = try await database.addChannel(appID: app)
            try await database.enqueue(channelID: channel, payload: [1, 2], timestamp: 1_700_000_123, eventID: 9)
            let store = Self.store(database)
            let now = Date()
            let claim = try #require(try await store.claim(owner: "w", limit: 1, lease: .seconds(30), at: now).first)
            let budget = ChannelBudget.Entry.priority10(at: Date(timeIntervalSince1970: 1_699_999_200))
            let result = try await store.complete([DeliveryCompletion.accepted(claim, budget: budget)], owner: "w", routineInterval: 2, at: now)
            #expect(result.deleted == [channel])
            #expect(result.deliveriesWritten == 1)
            #expect(try await database.outbox(channel) == nil)
            let deliveries = try await database.deliveries(channel)
            #expect(deliveries.count == 1)
            let delivery = try #require(deliveries.first)
            #expect(delivery.outcome == "sent")
            #expect(delivery.statusCode == 200)
            #expect(delivery.requestID == "req")
            #expect(delivery.uniqueID == "uniq")
            #expect(delivery.eventIDs == [9])
            #expect(delivery.attempt == 1)
            #expect(delivery.priority == 10)
            #expect(delivery.latency == 1.5)
            #expect(delivery.ingestToSend == 3.25)
            #expect(delivery.ingestToClaim == 1.25)
            let state = try await database.channel(channel)
            #expect(state.lastTimestamp == 1_700_000_123)
            // The completion's time, as Postgres keeps it (whole microseconds).
            #expect(abs(try #require(state.lastSentAt).timeIntervalSince(now)) < 0.000_001)
            #expect(try await database.ledger(channel) == [budget])
        }
    }

    /// Idle workers ask for the next due time after every wake: Postgres must plan that
    /// statement once per connection, not on each call (with the channel statuses bound as a
    /// parameter it chose a custom plan, 0.5–0.8 ms of planning, on most of ~3,500 calls in a
    /// Saturday run). One connection, so every call runs on the session whose statements are read.
    @Test func theNextDueLookIsPlannedOncePerConnection() async throws {
        try await DeliveryDatabase.with(maxConnections: 1) { database in
            let app = try await database.addApp()
            let channel = try await database.addChannel(appID: app)
            try await database.enqueue(channelID: channel, payload: [1], timestamp: 10, dueIn: 30)
            let store = Self.store(database)
            let now = Date()
            for _ in 0..<12 {
                let wait = try #require(try await store.secondsUntilNextDue(at: now))
                #expect(wait > 0 && wait <= 30)
            }
            let plans = try await database.pool.query("""
                SELECT generic_plans, custom_plans FROM pg_prepared_statements
                WHERE statement LIKE '%min(GREATEST(o.due_at, COALESCE(o.not_before, o.due_at)))%'
                  AND statement NOT LIKE '%pg_prepared_statements%'
                """)
            #expect(plans.count == 1)
            #expect(try plans.first?.decode("custom_plans", as: Int64.self) == 0)
            #expect(try plans.first?.decode("generic_plans", as: Int64.self) == 12)
        }
    }

    /// In the bench Postgres planned every claim afresh (358 plans for 358 claims, 0.9 ms each):
    /// its custom plans looked cheaper than the generic one. Under `ReusablePlans` it is planned
    /// once per connection, for claims of any size and exclusions (without: 12 custom plans).
    @Test func theClaimIsPlannedOncePerConnection() async throws {
        try await DeliveryDatabase.with(maxConnections: 1) { database in
            let app = try await database.addApp()
            try await database.pool.execute("""
                INSERT INTO channels (apns_channel_id, app_id, storage_policy, status)
                SELECT 'channel-' || n, \(app), 0, 'active' FROM generate_series(1, 4000) n
                """)
            try await database.pool.execute("ANALYZE channels, outbox")
            let store = Self.store(database)
            for round in 0..<12 {
                try await database.pool.execute("""
                    INSERT INTO outbox (channel_id, payload, payload_timestamp, priority, alerting, event_ids, first_ingested_at, due_at)
                    SELECT id, '\\x01'::bytea, \(round), 5, id % 7 = 0, ARRAY[1]::bigint[], now(), now() - interval '1 second'
                    FROM channels WHERE id % 12 <> \(round) ORDER BY id LIMIT \(100 + round * 200)
                    ON CONFLICT (channel_id) DO NOTHING
                    """)
                let limit = [1, 60, 256][round % 3]
                let claimed = try await store.claim(owner: "w", limit: limit, lease: .seconds(30),
                                                    excluding: round.isMultiple(of: 2) ? [] : [1, 2, 3], at: Date())
                #expect(claimed.count == limit, "round \(round)")
                try await database.pool.execute("DELETE FROM outbox WHERE lease_owner IS NOT NULL")
            }
            let plans = try await database.pool.query("""
                SELECT generic_plans, custom_plans FROM pg_prepared_statements
                WHERE statement LIKE '%FOR UPDATE OF o SKIP LOCKED%' AND statement NOT LIKE '%pg_prepared_statements%'
                """)
            #expect(plans.count == 1)
            let custom = try plans.first?.decode("custom_plans", as: Int64.self)
            let generic = try plans.first?.decode("generic_plans", as: Int64.self)
            #expect(custom == 0 && generic == 12, "custom plans \(custom ?? -1), generic \(generic ?? -1)")
        }
    }

    @Test func aNewerEventDuringTheSendStaysPendingAndIsSpaced() async throws {
        try await DeliveryDatabase.with { database in
            let app = try await database.addApp()
            let channel = try await database.addChannel(appID: app)
            let first = try await database.addEvent(seq: 1)
            let second = try await database.addEvent(seq: 2)
            try await database.enqueue(channelID: channel, payload: [1], timestamp: 10, priority: 5, alerting: false, eventID: first.id)
            try await database.enqueue(channelID: channel, payload: [2], timestamp: 11, priority: 5, alerting: false, eventID: second.id)
            let store = Self.store(database)
            let claimedAt = Date()
            let claim = try #require(try await store.claim(owner: "w", limit: 1, lease: .seconds(30), at: claimedAt).first)
            #expect(claim.coalesced == 1)
            #expect(claim.eventIDs == [first.id, second.id])
            // Ingest replaces the payload twice while the send is in flight.
            try await Task.sleep(for: .milliseconds(20))
            let third = try await database.addEvent(seq: 3)
            let fourth = try await database.addEvent(seq: 4)
            try await database.enqueue(channelID: channel, payload: [3], timestamp: 12, priority: 5, alerting: false, eventID: third.id)
            let newer = try await database.enqueue(channelID: channel, payload: [4], timestamp: 13, priority: 5, alerting: false, eventID: fourth.id)
            #expect(newer == 4)
            let completedAt = Date()
            let result = try await store.complete([DeliveryCompletion.accepted(claim)], owner: "w", routineInterval: 30, at: completedAt)
            #expect(result.superseded == [channel])
            #expect(result.deleted.isEmpty)
            let row = try #require(try await database.outbox(channel))
            #expect(row.version == 4)
            #expect(row.payload == [4])
            #expect(row.leaseOwner == nil)
            #expect(row.claimedVersion == nil)
            #expect(row.leaseExpiresAt == nil)
            #expect(row.attempts == 0)
            // Only what the send did not carry is left: two events, one of them coalesced.
            #expect(row.eventIDs == [third.id, fourth.id])
            #expect(row.coalesced == 1)
            #expect(row.firstIngestedAt == third.receivedAt)
            // A routine update waits the routine interval after the send that just went out
            // (the completion's time, as Postgres keeps it: whole microseconds).
            #expect(abs(row.dueAt.timeIntervalSince(completedAt.addingTimeInterval(30))) < 0.000_001, "\(row.dueAt)")
            #expect(try await database.deliveries(channel).map(\.outcome) == ["sent"])
            #expect(try await database.deliveries(channel).map(\.coalesced) == [1])
            #expect(try await database.channel(channel).lastTimestamp == 11)
        }
    }

    @Test func aFreshRowWrittenOverTheOneInFlightKeepsItsOwnCounts() async throws {
        try await DeliveryDatabase.with { database in
            let app = try await database.addApp()
            let channel = try await database.addChannel(appID: app)
            let first = try await database.addEvent(seq: 1)
            let second = try await database.addEvent(seq: 2)
            try await database.enqueue(channelID: channel, payload: [1], timestamp: 10, eventID: first.id)
            try await database.enqueue(channelID: channel, payload: [1], timestamp: 10, eventID: second.id)
            let store = Self.store(database)
            let now = Date()
            let claim = try #require(try await store.claim(owner: "w", limit: 1, lease: .seconds(30), at: now).first)
            // Ingest writes a row of its own over the one in flight (as EventIngestor does).
            let third = try await database.addEvent(seq: 3)
            try await database.pool.execute("""
                UPDATE outbox SET version = version + 1, payload = '\\x03', event_ids = ARRAY[\(third.id)]::bigint[],
                    coalesced = 0, first_ingested_at = \(third.receivedAt)
                WHERE channel_id = \(channel)
                """)
            try await store.complete([DeliveryCompletion.accepted(claim)], owner: "w", routineInterval: 0, at: now)
            let row = try #require(try await database.outbox(channel))
            #expect(row.eventIDs == [third.id])
            #expect(row.coalesced == 0)
            #expect(row.firstIngestedAt == third.receivedAt)
            #expect(row.leaseOwner == nil)
        }
    }

    @Test func completionsRacingWithIngestNeverLoseANewerPayload() async throws {
        try await DeliveryDatabase.with(maxConnections: 10) { database in
            let app = try await database.addApp()
            var channels: [Int64] = []
            for _ in 0..<40 {
                let channel = try await database.addChannel(appID: app)
                try await database.enqueue(channelID: channel, payload: [1], timestamp: 10)
                channels.append(channel)
            }
            let store = Self.store(database)
            let now = Date()
            let claims = try await store.claim(owner: "w", limit: 100, lease: .seconds(30), at: now)
            #expect(claims.count == 40)
            // Ingest updates half the channels while the batch's outcomes are being written.
            try await withThrowingTaskGroup(of: Void.self) { group in
                for channel in channels where channel % 2 == 0 {
                    group.addTask { try await database.enqueue(channelID: channel, payload: [2], timestamp: 11, eventID: 2) }
                }
                group.addTask {
                    let result = try await store.complete(claims.map { DeliveryCompletion.accepted($0) }, owner: "w", routineInterval: 0, at: now)
                    #expect(result.fencedOut.isEmpty)
                    #expect(result.deliveriesWritten == 40)
                }
                try await group.waitForAll()
            }
            for channel in channels {
                let row = try await database.outbox(channel)
                if channel % 2 == 0 {
                    // The newer payload waits, unleased: superseded during the completion
                    // (version 2), or written as a new row after the sent one was deleted (1).
                    let pending = try #require(row, "channel \(channel) was updated by ingest but has no outbox row")
                    #expect(pending.payload == [2])
                    #expect(pending.leaseOwner == nil)
                    #expect(pending.version == 2 || (pending.version == 1 && pending.coalesced == 0))
                } else {
                    #expect(row == nil)
                }
            }
        }
    }

    @Test func anAlertingRowThatArrivedDuringTheSendIsNotHeldBack() async throws {
        try await DeliveryDatabase.with { database in
            let app = try await database.addApp()
            let channel = try await database.addChannel(appID: app)
            try await database.enqueue(channelID: channel, payload: [1], timestamp: 10, priority: 5, alerting: false)
            let store = Self.store(database)
            let now = Date()
            let claim = try #require(try await store.claim(owner: "w", limit: 1, lease: .seconds(30), at: now).first)
            try await database.enqueue(channelID: channel, payload: [2], timestamp: 11, priority: 10, alerting: true, eventID: 2)
            try await store.complete([DeliveryCompletion.accepted(claim)], owner: "w", routineInterval: 30, at: now)
            let row = try #require(try await database.outbox(channel))
            #expect(row.dueAt <= now)
            #expect(try await store.claim(owner: "w", limit: 1, lease: .seconds(30), at: now).map(\.version) == [2])
        }
    }

    @Test func aCompletionFromAWorkerThatLostItsLeaseChangesNothing() async throws {
        try await DeliveryDatabase.with { database in
            let app = try await database.addApp()
            let channel = try await database.addChannel(appID: app)
            try await database.enqueue(channelID: channel, payload: [1], timestamp: 10)
            let store = Self.store(database)
            let now = Date()
            let stale = try #require(try await store.claim(owner: "slow", limit: 1, lease: .seconds(30), at: now).first)
            // The slow worker's lease runs out; the rescuer claims, and the slow worker completes, after it.
            let later = now.addingTimeInterval(31)
            let rescuer = try #require(try await store.claim(owner: "rescuer", limit: 1, lease: .seconds(30), at: later).first)
            #expect(rescuer.version == stale.version)

            let budget = ChannelBudget.Entry.priority10(at: Date(timeIntervalSince1970: 0))
            for action in [OutboxSettlement.Action.finish, .cancelChannel, .pauseApp(reason: "x"), .retry(delay: 5, error: "e"), .release] {
                var completion = DeliveryCompletion.accepted(stale, budget: budget)
                completion.action = action
                let result = try await store.complete([completion], owner: "slow", routineInterval: 0, at: later)
                #expect(result.fencedOut == [channel])
                #expect(result.deliveriesWritten == 0)
            }
            let row = try #require(try await database.outbox(channel))
            #expect(row.leaseOwner == "rescuer")
            #expect(row.attempts == 0)
            #expect(row.notBefore == nil)
            #expect(try await database.deliveries(channel).isEmpty)
            #expect(try await database.ledger(channel).isEmpty)
            #expect(try await database.channel(channel).status == "active")
            #expect(try await database.channel(channel).lastTimestamp == 0)
            #expect(try await database.pause(app).at == nil)
        }
    }

    @Test func aCompletionForAStaleVersionDoesNotDeleteTheNewerPayload() async throws {
        try await DeliveryDatabase.with { database in
            let app = try await database.addApp()
            let channel = try await database.addChannel(appID: app)
            try await database.enqueue(channelID: channel, payload: [1], timestamp: 10)
            let store = Self.store(database)
            let now = Date()
            let claim = try #require(try await store.claim(owner: "w", limit: 1, lease: .seconds(30), at: now).first)
            try await database.enqueue(channelID: channel, payload: [2], timestamp: 11, eventID: 2)
            var failedForGood = Self.failed(claim, .finish, outcome: .failed, status: 400, reason: "BadPriority")
            failedForGood.claimedVersion = claim.version
            try await store.complete([failedForGood], owner: "w", routineInterval: 0, at: now)
            let row = try #require(try await database.outbox(channel))
            #expect(row.version == 2)
            #expect(row.payload == [2])
            #expect(row.leaseOwner == nil)
        }
    }

    @Test func retryCountsTheAttemptBacksOffAndReleases() async throws {
        try await DeliveryDatabase.with { database in
            let app = try await database.addApp()
            let channel = try await database.addChannel(appID: app)
            try await database.enqueue(channelID: channel, payload: [1], timestamp: 10)
            let store = Self.store(database)
            let now = Date()
            let claim = try #require(try await store.claim(owner: "w", limit: 1, lease: .seconds(30), at: now).first)
            try await store.complete(
                [Self.failed(claim, .retry(delay: 60, error: "503 ServiceUnavailable"), outcome: .retry, status: 503, reason: "ServiceUnavailable")],
                owner: "w", routineInterval: 0, at: now)
            let row = try #require(try await database.outbox(channel))
            #expect(row.attempts == 1)
            #expect(row.leaseOwner == nil)
            #expect(row.claimedVersion == nil)
            #expect(row.lastError == "503 ServiceUnavailable")
            let notBefore = try #require(row.notBefore)
            #expect(abs(notBefore.timeIntervalSince(now.addingTimeInterval(60))) < 0.000_001, "\(notBefore)")
            #expect(try await store.claim(owner: "w", limit: 1, lease: .seconds(30), at: now).isEmpty)
            // Coalescing does not undo the backoff.
            try await database.enqueue(channelID: channel, payload: [2], timestamp: 11, eventID: 2)
            #expect(try await store.claim(owner: "w", limit: 1, lease: .seconds(30), at: now).isEmpty)
            // Once the backoff has passed on the claim's clock, the row goes again.
            #expect(try await store.claim(owner: "w", limit: 1, lease: .seconds(30), at: notBefore.addingTimeInterval(-0.001)).isEmpty)
            let again = try #require(try await store.claim(owner: "w", limit: 1, lease: .seconds(30), at: notBefore).first)
            #expect(again.attempt == 2)
            #expect(try await database.deliveries(channel).map(\.outcome) == ["retry"])
        }
    }

    @Test func channelGoneMarksTheChannelAndCancelsItsWork() async throws {
        try await DeliveryDatabase.with { database in
            let app = try await database.addApp()
            let channel = try await database.addChannel(appID: app)
            try await database.enqueue(channelID: channel, payload: [1], timestamp: 10)
            let store = Self.store(database)
            let now = Date()
            let claim = try #require(try await store.claim(owner: "w", limit: 1, lease: .seconds(30), at: now).first)
            try await database.enqueue(channelID: channel, payload: [2], timestamp: 11, eventID: 2)
            let result = try await store.complete(
                [Self.failed(claim, .cancelChannel, outcome: .gone, status: 400, reason: "ChannelNotRegistered")], owner: "w", routineInterval: 0, at: now)
            #expect(result.deleted == [channel])
            #expect(try await database.outbox(channel) == nil)
            #expect(try await database.channel(channel).status == "gone")
            #expect(try await database.deliveries(channel).map(\.reason) == ["ChannelNotRegistered"])
            // A later event for the gone channel is never claimed, even once it is due.
            try await database.enqueue(channelID: channel, payload: [3], timestamp: 12, eventID: 3)
            #expect(try await store.claim(owner: "w", limit: 1, lease: .seconds(30), at: Date()).isEmpty)
        }
    }

    @Test func credentialErrorsPauseTheAppOnceAndKeepTheRow() async throws {
        try await DeliveryDatabase.with { database in
            let app = try await database.addApp()
            let first = try await database.addChannel(appID: app)
            let second = try await database.addChannel(appID: app)
            try await database.enqueue(channelID: first, payload: [1], timestamp: 10)
            try await database.enqueue(channelID: second, payload: [1], timestamp: 10)
            let store = Self.store(database)
            let now = Date()
            let claims = try await store.claim(owner: "w", limit: 2, lease: .seconds(30), at: now)
            #expect(claims.count == 2)
            let result = try await store.complete(
                claims.map { Self.failed($0, .pauseApp(reason: "403 InvalidProviderToken"), outcome: .paused, status: 403, reason: "InvalidProviderToken") },
                owner: "w", routineInterval: 0, at: now)
            #expect(result.newlyPausedApps.map(\.id) == [app])
            #expect(result.newlyPausedApps.map(\.bundleID) == ["com.example.scores"])
            let pause = try await database.pause(app)
            #expect(pause.reason == "403 InvalidProviderToken")
            #expect(pause.at != nil)
            for channel in [first, second] {
                let row = try #require(try await database.outbox(channel))
                #expect(row.leaseOwner == nil)
            }
            #expect(try await store.claim(owner: "w", limit: 2, lease: .seconds(30), at: now).isEmpty)

            // Once resumed, the rows go again; a second refusal pauses again, reported again.
            try await database.pool.execute("UPDATE apps SET paused_at = NULL, paused_reason = NULL WHERE id = \(app)")
            let retried = try await store.claim(owner: "w", limit: 2, lease: .seconds(30), at: now)
            #expect(retried.count == 2)
            let firstAgain = try await store.complete(
                [Self.failed(retried[0], .pauseApp(reason: "again"), outcome: .paused, status: 403, reason: "InvalidProviderToken")],
                owner: "w", routineInterval: 0, at: now)
            #expect(firstAgain.newlyPausedApps.map(\.id) == [app])
            // Another worker's completion finding the app already paused does not report it again.
            let secondAgain = try await store.complete(
                [Self.failed(retried[1], .pauseApp(reason: "again"), outcome: .paused, status: 403, reason: "InvalidProviderToken")],
                owner: "w", routineInterval: 0, at: now)
            #expect(secondAgain.newlyPausedApps.isEmpty)
        }
    }

    @Test func releaseGivesLeasesBackAndNothingElse() async throws {
        try await DeliveryDatabase.with { database in
            let app = try await database.addApp()
            var channels: [Int64] = []
            for _ in 0..<3 {
                let channel = try await database.addChannel(appID: app)
                try await database.enqueue(channelID: channel, payload: [1], timestamp: 10)
                channels.append(channel)
            }
            let store = Self.store(database)
            let now = Date()
            let claims = try await store.claim(owner: "proc-1/w0", limit: 2, lease: .seconds(30), at: now)
            _ = try await store.claim(owner: "proc-2/w0", limit: 1, lease: .seconds(30), at: now)
            #expect(try await store.release(channelIDs: [claims[0].channelID], owner: "proc-1/w0") == 1)
            #expect(try await store.release(channelIDs: [claims[1].channelID], owner: "someone-else") == 0)
            #expect(try await store.releaseAll(ownerPrefix: "proc-1/") == 1)
            var owners: [String?] = []
            for channel in channels { owners.append(try await database.outbox(channel)?.leaseOwner) }
            #expect(owners.compactMap { $0 } == ["proc-2/w0"])
            var claimedVersions: [Int64?] = []
            for channel in channels { claimedVersions.append(try await database.outbox(channel)?.claimedVersion) }
            #expect(claimedVersions.compactMap { $0 } == [1])
            #expect(try await database.deliveries(channels[0]).isEmpty)
        }
    }

    @Test func secondsUntilNextDueSeesBackoffAndIgnoresUnsendableRows() async throws {
        try await DeliveryDatabase.with { database in
            let store = Self.store(database)
            let now = Date()
            #expect(try await store.secondsUntilNextDue(at: now) == nil)
            let app = try await database.addApp()
            let gone = try await database.addChannel(appID: app, status: "gone")
            try await database.enqueue(channelID: gone, payload: [1], timestamp: 1, dueIn: -10)
            #expect(try await store.secondsUntilNextDue(at: now) == nil)
            let channel = try await database.addChannel(appID: app)
            try await database.enqueue(channelID: channel, payload: [1], timestamp: 1)
            try await database.pool.execute("UPDATE outbox SET due_at = \(now.addingTimeInterval(20)) WHERE channel_id = \(channel)")
            let wait = try #require(try await store.secondsUntilNextDue(at: now))
            #expect(abs(wait - 20) < 0.000_001, "\(wait)")
            try await database.pool.execute("""
                UPDATE outbox SET due_at = \(now.addingTimeInterval(-1)), not_before = \(now.addingTimeInterval(40)) WHERE channel_id = \(channel)
                """)
            let backoff = try #require(try await store.secondsUntilNextDue(at: now))
            #expect(abs(backoff - 40) < 0.000_001, "\(backoff)")
        }
    }

    /// At the instant a dead worker's lease runs out, the workers' next-due look and the claim
    /// agree: a worker the look wakes finds the row claimable (they once disagreed at that
    /// instant, and a worker on a clock that stood still there looked and claimed in a loop).
    @Test func atALeasesExpiryTheNextDueLookAndTheClaimAgree() async throws {
        try await DeliveryDatabase.with { database in
            let store = Self.store(database)
            let app = try await database.addApp()
            let channel = try await database.addChannel(appID: app)
            try await database.enqueue(channelID: channel, payload: [1], timestamp: 1, dueIn: -10)
            let start = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down))  // whole seconds: exact in Postgres
            #expect(try await store.claim(owner: "dead/w0", limit: 1, lease: .seconds(5), at: start).count == 1)
            let expiry = start.addingTimeInterval(5)
            #expect(try await store.secondsUntilNextDue(at: expiry.addingTimeInterval(-0.001)) == nil)
            #expect(try await store.claim(owner: "w/w0", limit: 1, lease: .seconds(5), at: expiry.addingTimeInterval(-0.001)).isEmpty)
            let wait = try #require(try await store.secondsUntilNextDue(at: expiry))
            #expect(wait <= 0)
            #expect(try await store.claim(owner: "w/w0", limit: 1, lease: .seconds(5), at: expiry).map(\.leaseOwner) == ["w/w0"])
        }
    }
}
