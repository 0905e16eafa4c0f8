import APNsSimulator
import Clocks
import DeliveryEngine
@testable import Devices
import Foundation
import Postgres
@testable import Registry
import ScorecastCore
import ScorecastLogging
@testable import ServiceBase
import Testing

/// Kick-off fan-out and the token path against real Postgres and the simulator over HTTP/2 TLS.
@Suite("Kick-off fan-out and activity tokens")
struct KickoffFanOutTests {
    static let kickoff = Date(timeIntervalSince1970: 1_795_993_200)

    /// A fan-out on the fixture going by `clock`, or else a clock that reads `now`.
    func fanOut(
        _ fixture: RegistryFixture, now: Date = kickoff, clock: ManualServiceClock? = nil, metrics: DeviceMetrics? = nil
    ) throws -> DeviceFanOut {
        var configuration = try Configuration.load(from: [:], workingDirectory: fixture.folder)
        configuration.devices.startBatch = 3 // several chunks and claims per kick-off
        return DeviceFanOut(pool: fixture.pool, apns: fixture.client, credentials: CredentialStore(), configuration: configuration,
                            metrics: metrics, logger: RegistryFixture.logger, clock: clock ?? ManualServiceClock(now))
    }

    /// Registers a device and its follows directly in the store.
    @discardableResult
    func device(_ fixture: RegistryFixture, _ installID: String, token: Int?, os: String = "18.1", frequent: Bool = true,
                follows: [(FollowKind, String)]) async throws -> DeviceRecord {
        let store = DeviceStore(pool: fixture.pool)
        let (device, _) = try await store.register(bundleID: "com.example.scores", installID: installID, DeviceRegistration(
            environment: .sandbox, pushToStartToken: token.map(AppAPIHarness.token), osVersion: try #require(OSVersion(os)),
            osVersionText: os, frequentUpdates: frequent, locale: "en"))
        for (kind, value) in follows { try await store.follow(deviceID: device.id, kind: kind, value: value) }
        return device
    }

    /// Posts feed events for the game as the ingest API would, at a time past the whole match.
    func feed(_ fixture: RegistryFixture) -> (String) async throws -> Void {
        let ingestor = EventIngestor(pool: fixture.pool, settings: IngestSettings(), logger: RegistryFixture.logger)
        return { json in
            let events = try FeedEventValidator().events(fromBody: Array(json.utf8), now: Self.kickoff.addingTimeInterval(7_200))
            _ = try await ingestor.ingest(events, feed: "test")
        }
    }

    func addGame(_ fixture: RegistryFixture, startsAt: Date = kickoff.addingTimeInterval(240)) async throws {
        _ = try await GameStore(pool: fixture.pool).add(GameDraft(
            id: "g1", league: "EPL", homeTeam: "Arsenal", awayTeam: "Chelsea",
            homeIdentity: try TeamIdentity.parse(side: "home", code: "afc", colours: "#ef0107,#ffffff"), startsAt: startsAt))
    }

    @Test func onePushToStartPerFollowingDeviceWithTheRightInput() async throws {
        try await RegistryFixture.with { fixture in
            let app = try await fixture.addApp(environment: .sandbox)
            try await addGame(fixture)
            let standard = try await fixture.registry().createChannel(gameID: "g1", app: app).listing.channel
            let light = try await fixture.registry().lightChannel(gameID: "g1", app: app).listing.channel
            #expect(light.id != standard.id)
            try await device(fixture, "ios18-team", token: 1, follows: [(.team, "Arsenal")])
            try await device(fixture, "ios17-league", token: 2, os: "17.4", follows: [(.league, "EPL")])
            try await device(fixture, "twice", token: 3, follows: [(.game, "g1"), (.team, "Chelsea"), (.league, "EPL")])
            try await device(fixture, "light", token: 4, frequent: false, follows: [(.team, "Arsenal")])
            try await device(fixture, "elsewhere", token: 5, follows: [(.team, "Spurs")])
            try await device(fixture, "no-token", token: nil, follows: [(.team, "Arsenal")])
            let dead = try await device(fixture, "dead", token: 6, follows: [(.team, "Arsenal")])
            try fixture.simulator.unregisterDeviceToken(AppAPIHarness.token(6), timestampMilliseconds: 1_795_990_000_000)

            // Six minutes before kick-off nothing is due (the lead is 5 minutes).
            #expect(try await fanOut(fixture, now: Self.kickoff.addingTimeInterval(-120)).tick() == 0)
            #expect(fixture.simulator.deviceTokens().allSatisfy { $0.accepted == 0 })

            let fanOut = try fanOut(fixture)
            #expect(try await fanOut.tick() == 5)
            let received = Dictionary(uniqueKeysWithValues: fixture.simulator.deviceTokens().map { ($0.token, $0) })
            #expect(received[AppAPIHarness.token(1)]?.lastStartInput == standard.apnsChannelID)
            #expect(received[AppAPIHarness.token(2)]?.lastStartInput == "token")
            #expect(received[AppAPIHarness.token(3)]?.starts == 1)
            #expect(received[AppAPIHarness.token(4)]?.lastStartInput == light.apnsChannelID)
            #expect(received[AppAPIHarness.token(5)] == nil)
            #expect(received[AppAPIHarness.token(6)]?.accepted == 0)

            // What APNs got is a complete push-to-start on the live-activity topic.
            let start = try #require(fixture.simulator.receivedRequests().last { $0.path == "/3/device/\(AppAPIHarness.token(1))" })
            #expect(start.headers.first { $0.name == "apns-topic" }?.value == "com.example.scores.push-type.liveactivity")
            #expect(start.headers.first { $0.name == "apns-push-type" }?.value == "liveactivity")
            #expect(start.notes.isEmpty, "\(start.notes)")
            let aps = try #require((try JSONSerialization.jsonObject(with: Data(start.body.utf8)) as? [String: Any])?["aps"] as? [String: Any])
            #expect(aps["event"] as? String == "start")
            #expect(aps["attributes-type"] as? String == "GameAttributes")
            let attributes = try #require(aps["attributes"] as? [String: Any])
            #expect(attributes["gameID"] as? String == "g1")
            // The registered identity travels as given; the away team's falls back.
            #expect(attributes["home"] as? [String: String] == ["name": "Arsenal", "abbreviation": "AFC", "primaryColour": "#EF0107", "secondaryColour": "#FFFFFF"])
            #expect(attributes["away"] as? [String: String] == ["name": "Chelsea", "abbreviation": "CHE", "primaryColour": "#8E8E93", "secondaryColour": "#FFFFFF"])
            #expect(aps["alert"] != nil && aps["content-state"] != nil)

            // A second round sends nothing: no device is started twice.
            #expect(try await fanOut.tick() == 0)
            #expect(fixture.simulator.deviceTokens().map(\.starts).reduce(0, +) == 4)

            let progress = try await KickoffStore(pool: fixture.pool).progress()
            #expect(progress.started == 4)
            #expect(progress.failedByReason == ["Unregistered": 1])
            #expect(progress.pushToStartTokensPruned == 1)
            let pruned = try #require(try await DeviceStore(pool: fixture.pool).find(bundleID: "com.example.scores", installID: dead.installID))
            #expect(pruned.pushToStartToken == nil)
            #expect(pruned.tokenPrunedReason == "Unregistered")
            let trigger = try await fixture.pool.query("SELECT trigger, planned, planned_at FROM kickoffs WHERE game_id = 'g1'").first
            #expect(try trigger?.decode("trigger", as: String.self) == "lead-time")
            #expect(try trigger?.decode("planned", as: Int32.self) == 5, "in chunks of 3: 3, then 2 (one follower has no token)")
            #expect(try trigger?.decode("planned_at", as: Date?.self) != nil, "planning is done")
        }
    }

    @Test func aCrashMidFanOutResumesWithoutStartingAnyDeviceTwice() async throws {
        try await RegistryFixture.with { fixture in
            _ = try await fixture.addApp(environment: .sandbox)
            try await addGame(fixture, startsAt: Self.kickoff.addingTimeInterval(86_400))
            for n in 1...7 { try await device(fixture, "d\(n)", token: n, follows: [(.team, "Arsenal")]) }
            let store = KickoffStore(pool: fixture.pool)
            #expect(try await store.begin(gameID: "g1", trigger: .command, now: Self.kickoff.addingTimeInterval(-700)))
            // A process plans and claims a chunk of two starts and dies before recording them; by
            // the service clock its 10-minute lease ran out a second ago.
            let lost = try await store.planAndClaim(
                limit: 2, owner: "crashed", lease: .seconds(600), now: Self.kickoff.addingTimeInterval(-601)).claimed
            #expect(lost.count == 2)
            // Still within it, nothing is given up.
            #expect(try await store.abandonExpired(now: Self.kickoff.addingTimeInterval(-2)) == 0)

            #expect(try await fanOut(fixture).tick() == 5)
            let started = Set(fixture.simulator.deviceTokens().filter { $0.starts == 1 }.map(\.token))
            #expect(started.count == 5)
            #expect(started.isDisjoint(with: lost.map(\.token)), "a start that may have reached APNs is never repeated")
            var progress = try await store.progress()
            #expect(progress.started == 5)
            #expect(progress.failedByReason == ["Interrupted": 2])
            #expect(progress.pending == 0 && progress.sending == 0)

            // The command again plans the whole audience again, and adds nobody.
            #expect(try await store.begin(gameID: "g1", trigger: .command, now: Self.kickoff) == false)
            #expect(try await fanOut(fixture).tick() == 0, "planning again adds nobody")
            progress = try await store.progress()
            #expect(progress.started == 5 && progress.failed == 2)
            #expect(fixture.simulator.deviceTokens().map(\.starts).reduce(0, +) == 5)
        }
    }

    @Test func aCrashBetweenChunksGoesOnFromTheCursorWithoutStartingAnyDeviceTwice() async throws {
        try await RegistryFixture.with { fixture in
            _ = try await fixture.addApp(environment: .sandbox)
            try await addGame(fixture, startsAt: Self.kickoff.addingTimeInterval(86_400))
            var devices: [DeviceRecord] = []
            for n in 1...7 { devices.append(try await device(fixture, "d\(n)", token: n, follows: [(.team, "Arsenal")])) }
            let store = KickoffStore(pool: fixture.pool)
            #expect(try await store.begin(gameID: "g1", trigger: .command, now: Self.kickoff))
            // A process plans a first chunk of three, sends it and records it, then dies before
            // taking the next chunk.
            let first = try await store.planAndClaim(limit: 3, owner: "crashed", lease: .seconds(600), now: Self.kickoff)
            #expect(first.planned && first.claimed.map(\.deviceID).sorted() == devices.prefix(3).map(\.id))
            try await store.complete(first.claimed.map { start in
                KickoffStore.Completion(deviceID: start.deviceID, gameID: start.gameID, status: .started, input: "token", statusCode: 200,
                                        reason: "", apnsID: "", retryAfter: 0, pruneReason: nil, token: start.token)
            }, owner: "crashed", now: Self.kickoff)
            let cursor = try await fixture.pool.query("SELECT plan_cursor, planned, planned_at FROM kickoffs WHERE game_id = 'g1'").first
            #expect(try cursor?.decode("plan_cursor", as: Int64.self) == devices[2].id)
            #expect(try cursor?.decode("planned", as: Int32.self) == 3)
            #expect(try cursor?.decode("planned_at", as: Date?.self) == nil, "planning is not done")

            // Another process goes on from the cursor: only the four devices after it.
            #expect(try await fanOut(fixture).tick() == 4)
            let started = fixture.simulator.deviceTokens().filter { $0.starts > 0 }
            #expect(Set(started.map(\.token)) == Set((4...7).map(AppAPIHarness.token)))
            #expect(started.allSatisfy { $0.starts == 1 })
            let progress = try await store.progress()
            #expect(progress.started == 7 && progress.failed == 0 && progress.pending == 0 && progress.sending == 0)
            let done = try await fixture.pool.query("SELECT planned, planned_at FROM kickoffs WHERE game_id = 'g1'").first
            #expect(try done?.decode("planned", as: Int32.self) == 7)
            #expect(try done?.decode("planned_at", as: Date?.self) != nil)
        }
    }

    @Test func twoProcessesPlanningOneKickoffTakeTurnsAndStartEachDeviceOnce() async throws {
        try await RegistryFixture.with { fixture in
            _ = try await fixture.addApp(environment: .sandbox)
            try await addGame(fixture, startsAt: Self.kickoff.addingTimeInterval(86_400))
            for n in 1...20 { try await device(fixture, "d\(n)", token: n, follows: [(.team, "Arsenal")]) }
            #expect(try await KickoffStore(pool: fixture.pool).begin(gameID: "g1", trigger: .command, now: Self.kickoff))
            // Two processes (owners of their own) plan and send chunks of 3 of the same kick-off at once.
            let (one, other) = (try fanOut(fixture), try fanOut(fixture))
            async let sentByOne = one.tick()
            async let sentByOther = other.tick()
            #expect(try await sentByOne + sentByOther == 20)
            let tokens = fixture.simulator.deviceTokens()
            #expect(tokens.count == 20 && tokens.allSatisfy { $0.starts == 1 })
            let kickoff = try await fixture.pool.query("SELECT planned, planned_at FROM kickoffs WHERE game_id = 'g1'").first
            #expect(try kickoff?.decode("planned", as: Int32.self) == 20)
            #expect(try kickoff?.decode("planned_at", as: Date?.self) != nil)
        }
    }

    @Test func retryableAnswersAreRetriedAndStartOnce() async throws {
        try await RegistryFixture.with { fixture in
            _ = try await fixture.addApp(environment: .sandbox)
            try await addGame(fixture)
            try await device(fixture, "d1", token: 1, follows: [(.team, "Arsenal")])
            try fixture.simulator.setFaults(SimulatorFaults(failNext: 1, failStatus: 503))
            let clock = ManualServiceClock(Self.kickoff)
            let fanOut = try fanOut(fixture, clock: clock)
            #expect(try await fanOut.tick() == 1)
            var progress = try await KickoffStore(pool: fixture.pool).progress()
            #expect(progress.pending == 1, "503 ServiceUnavailable: planned again after a backoff")
            // The backoff after a first attempt (0.05 s to 1 s) runs on the service clock.
            let retryAt = try #require(try await fixture.pool.query("SELECT not_before FROM activity_starts").first?
                .decode("not_before", as: Date?.self))
            #expect(retryAt >= Self.kickoff.addingTimeInterval(0.05) && retryAt <= Self.kickoff.addingTimeInterval(1), "\(retryAt)")
            #expect(try await fanOut.tick() == 0, "not due before its backoff")
            clock.advance(by: .seconds(1))
            #expect(try await fanOut.tick() == 1)
            progress = try await KickoffStore(pool: fixture.pool).progress()
            #expect(progress.started == 1)
            #expect(fixture.simulator.deviceTokens().first?.starts == 1)
        }
    }

    @Test func tokenPathGetsEveryUpdateAndTheEndAndDeadTokensArePruned() async throws {
        try await RegistryFixture.with { fixture in
            _ = try await fixture.addApp(environment: .sandbox)
            try await addGame(fixture)
            let live = try await device(fixture, "ios17", token: 1, os: "17.4", follows: [])
            let dead = try await device(fixture, "gone", token: 2, os: "17.4", follows: [])
            let store = DeviceStore(pool: fixture.pool)
            _ = try await store.registerActivityToken(deviceID: live.id, gameID: "g1", token: AppAPIHarness.token(101))
            _ = try await store.registerActivityToken(deviceID: live.id, gameID: "g1", token: AppAPIHarness.token(11)) // rotated
            _ = try await store.registerActivityToken(deviceID: dead.id, gameID: "g1", token: AppAPIHarness.token(12))
            try fixture.simulator.unregisterDeviceToken(AppAPIHarness.token(12))

            let post = feed(fixture)
            let fanOut = try fanOut(fixture)
            try await post(#"{"id":"e1","game":"g1","seq":1,"occurredAt":"2026-11-29T20:00:00Z","kind":"start","scoreboard":{"home":0,"away":0,"period":"1H"}}"#)
            try await fanOut.tick()
            try await post(#"{"id":"e2","game":"g1","seq":2,"occurredAt":"2026-11-29T20:12:00Z","kind":"score","team":"home","scoreboard":{"home":1}}"#)
            try await post(#"{"id":"e3","game":"g1","seq":3,"occurredAt":"2026-11-29T20:13:00Z","kind":"clock","scoreboard":{"clock":"13'"}}"#)
            try await fanOut.tick()
            try await post(#"{"id":"e4","game":"g1","seq":4,"occurredAt":"2026-11-29T21:50:00Z","kind":"final","scoreboard":{"home":1,"away":0}}"#)
            try await fanOut.tick()

            let pushes = fixture.simulator.receivedRequests().filter { $0.path == "/3/device/\(AppAPIHarness.token(11))" }
            let bodies = try pushes.map { try #require((try JSONSerialization.jsonObject(with: Data($0.body.utf8)) as? [String: Any])?["aps"] as? [String: Any]) }
            #expect(bodies.map { $0["event"] as? String } == ["update", "update", "end"])
            #expect(bodies.map { ($0["content-state"] as? [String: Any])?["homeScore"] as? Int } == [0, 1, 1])
            #expect(bodies[1]["alert"] != nil, "the goal's alert survives the clock update coalesced after it")
            #expect(bodies[2]["dismissal-date"] != nil)
            #expect(pushes.allSatisfy { $0.headers.first { $0.name == "apns-topic" }?.value == "com.example.scores.push-type.liveactivity" })
            #expect(fixture.simulator.receivedRequests().filter { $0.path.hasSuffix(AppAPIHarness.token(101)) }.isEmpty, "the rotated-out token gets nothing")

            let tokens = try await fixture.pool.query("SELECT token, status, pruned_reason FROM activity_tokens ORDER BY token")
            #expect(try tokens.map { try $0.decode("status", as: String.self) } == ["active", "pruned"])
            #expect(try tokens[1].decode("pruned_reason", as: String?.self) == "Unregistered")
            #expect(try await fixture.pool.query("SELECT 1 FROM activity_outbox").isEmpty)
        }
    }

    @Test func silentDevicesExpire() async throws {
        try await RegistryFixture.with { fixture in
            _ = try await fixture.addApp(environment: .sandbox)
            try await device(fixture, "old", token: 1, follows: [(.team, "Arsenal")])
            try await device(fixture, "new", token: 2, follows: [(.team, "Arsenal")])
            try await fixture.pool.execute("UPDATE devices SET last_seen_at = now() - interval '91 days' WHERE install_id = 'old'")
            #expect(try await DeviceExpiry(pool: fixture.pool, ttl: .seconds(90 * 86_400)).run(now: Date()) == 1)
            let left = try await fixture.pool.query("SELECT install_id FROM devices").map { try $0.decode("install_id", as: String.self) }
            #expect(left == ["new"])
            #expect(try await fixture.pool.query("SELECT count(*) AS n FROM follows").first?.decode("n", as: Int64.self) == 1)
        }
    }
}

extension KickoffFanOutTests {
    @Test func aDeviceIsSeenAndExpiresOnTheServiceClock() async throws {
        try await RegistryFixture.with { fixture in
            _ = try await fixture.addApp(environment: .sandbox)
            let clock = ManualServiceClock(Self.kickoff)
            let store = DeviceStore(pool: fixture.pool, clock: clock)
            _ = try await store.register(bundleID: "com.example.scores", installID: "d1", DeviceRegistration(
                environment: .sandbox, pushToStartToken: nil, osVersion: OSVersion(major: 18, minor: 1), osVersionText: "18.1",
                frequentUpdates: true, locale: "en"))
            func lastSeen() async throws -> Date? {
                try await fixture.pool.query("SELECT last_seen_at FROM devices").first?.decode("last_seen_at", as: Date.self)
            }
            #expect(try await lastSeen() == Self.kickoff)
            clock.advance(by: .seconds(59))
            _ = try await store.require(bundleID: "com.example.scores", installID: "d1")
            #expect(try await lastSeen() == Self.kickoff, "seen again within the minute: not written")
            clock.advance(by: .seconds(2))
            _ = try await store.require(bundleID: "com.example.scores", installID: "d1")
            #expect(try await lastSeen() == Self.kickoff.addingTimeInterval(61))

            let expiry = DeviceExpiry(pool: fixture.pool, ttl: .seconds(90 * 86_400))
            #expect(try await expiry.run(now: Self.kickoff.addingTimeInterval(61 + 90 * 86_400)) == 0)
            #expect(try await expiry.run(now: Self.kickoff.addingTimeInterval(62 + 90 * 86_400)) == 1)
        }
    }
}

/// The token path's coalescing keeps announcements: a goal still pending when a routine update
/// arrives in a later round is sent with the newer state and the goal's alert.
@Suite struct ActivityCoalescingTests {
    @Test func aPendingAlertRidesOnTheNewerState() async throws {
        try await RegistryFixture.with { fixture in
            _ = try await fixture.addApp(environment: .sandbox)
            try await fixture.addGame("g1")
            let store = DeviceStore(pool: fixture.pool)
            let (device, _) = try await store.register(bundleID: "com.example.scores", installID: "d1", DeviceRegistration(
                environment: .sandbox, pushToStartToken: nil, osVersion: OSVersion(major: 17, minor: 4), osVersionText: "17.4",
                frequentUpdates: true, locale: "en"))
            _ = try await store.registerActivityToken(deviceID: device.id, gameID: "g1", token: AppAPIHarness.token(1))
            let ingestor = EventIngestor(pool: fixture.pool, settings: IngestSettings(), logger: RegistryFixture.logger)
            let path = ActivityTokenPath(pool: fixture.pool, apns: fixture.client, credentials: CredentialStore(),
                                         staleness: StalenessPolicy(), batch: 10, budget: ActivityBudget(profiles: BudgetProfiles(standardPerHour: 12, frequentPerHour: 60), finalReserve: 1), metrics: nil, logger: RegistryFixture.logger,
                                         clock: SystemServiceClock())
            func post(_ json: String) async throws {
                _ = try await ingestor.ingest(try FeedEventValidator().events(fromBody: Array(json.utf8), now: Date()), feed: "test")
                try await path.queueUpdates(now: Date())
            }
            try await post(#"{"id":"s1","game":"g1","seq":1,"occurredAt":"2026-11-29T20:07:00Z","kind":"score","team":"home","player":"Saka","scoreboard":{"home":1}}"#)
            try await post(#"{"id":"c1","game":"g1","seq":2,"occurredAt":"2026-11-29T20:08:00Z","kind":"clock","scoreboard":{"clock":"8'"}}"#)
            let row = try #require(try await fixture.pool.query("SELECT payload, priority, alerting FROM activity_outbox").first)
            #expect(try row.decode("priority", as: Int16.self) == 10)
            let payload = try JSONSerialization.jsonObject(with: try row.decode("payload", as: Data.self)) as? [String: Any]
            let aps = try #require(payload?["aps"] as? [String: Any])
            #expect(aps["alert"] != nil, "the goal's alert is kept")
            #expect(((aps["content-state"] as? [String: Any])?["clock"] as? [String: Any])?["label"] as? String == "8'", "with the newer state")
        }
    }
}
