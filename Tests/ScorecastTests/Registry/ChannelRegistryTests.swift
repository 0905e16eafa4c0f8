import APNs
import APNsSimulator
@testable import Registry
import ScorecastCrypto
import Foundation
import Postgres
import ScorecastCore
import Testing

@Suite("ChannelRegistry against Postgres and the simulator")
struct ChannelRegistryTests {
    @Test func createListDeleteAndDeleteAgain() async throws {
        try await RegistryFixture.with { fixture in
            let app = try await fixture.addApp()
            try await fixture.addGame()
            let registry = fixture.registry()
            let created = try await registry.createChannel(gameID: "g1", app: app, policy: .mostRecentMessageStored)
            #expect(created.limitWarning == nil)
            #expect(created.listing.gameIDs == ["g1"])
            #expect(created.listing.channel.status == .active)
            #expect(fixture.simulatorChannels() == [created.listing.channel.apnsChannelID])
            let atAPNs = try #require(fixture.simulator.channels().first)
            #expect(atAPNs.messageStoragePolicy == 1)

            let listed = try await ChannelStore(pool: fixture.pool).list(.init(gameID: "g1"))
            #expect(listed.map(\.channel.id) == [created.listing.channel.id])

            #expect(try await registry.deleteChannel(id: created.listing.channel.id, reason: .admin).outcome == .deleted)
            #expect(fixture.simulatorChannels().isEmpty)
            let deleted = try #require(try await ChannelStore(pool: fixture.pool).find(id: created.listing.channel.id))
            #expect(deleted.channel.status == .deleted)
            #expect(deleted.channel.deletedAt != nil)
            #expect(try await registry.deleteChannel(id: created.listing.channel.id, reason: .admin).outcome == .alreadyDeleted)
        }
    }

    /// `games light-channel`: one light channel per game and app, never the standard one, bound
    /// as `light` when it is recorded.
    @Test func theLightChannelIsAChannelOfItsOwnMadeOnce() async throws {
        try await RegistryFixture.with { fixture in
            let app = try await fixture.addApp()
            try await fixture.addGame()
            let registry = fixture.registry()
            let standard = try await registry.createChannel(gameID: "g1", app: app).listing.channel
            let light = try await registry.lightChannel(gameID: "g1", app: app)
            #expect(!light.alreadyExisted)
            #expect(light.listing.channel.id != standard.id)
            #expect(light.listing.gameIDs == ["g1"])
            let store = ChannelStore(pool: fixture.pool)
            #expect(try await store.liveChannels(gameID: "g1", appID: app.id, tier: "light").map(\.id) == [light.listing.channel.id])
            #expect(try await store.liveChannels(gameID: "g1", appID: app.id).map(\.id) == [standard.id])
            #expect(fixture.simulatorChannels() == [standard.apnsChannelID, light.listing.channel.apnsChannelID])

            let again = try await registry.lightChannel(gameID: "g1", app: app)
            #expect(again.alreadyExisted)
            #expect(again.listing.channel.id == light.listing.channel.id)
            #expect(fixture.simulatorChannels().count == 2)
            // The standard channel is still the one `channels create` answers with.
            #expect(try await registry.createChannel(gameID: "g1", app: app).listing.channel.id == standard.id)
            let game = try await #require(throws: RegistryError.self) { try await registry.lightChannel(gameID: "nope", app: app) }
            #expect(game.code == .notFound)
        }
    }

    @Test func deletingAChannelAPNsForgotMarksItDeleted() async throws {
        try await RegistryFixture.with { fixture in
            let app = try await fixture.addApp()
            try await fixture.addGame()
            let registry = fixture.registry()
            let created = try await registry.createChannel(gameID: "g1", app: app)
            _ = try await fixture.client.delete(
                bundleID: app.bundleID, channelID: created.listing.channel.apnsChannelID, credentials: try await fixture.credentials(app))
            #expect(try await registry.deleteChannel(id: created.listing.channel.id, reason: .admin).outcome == .unknownToAPNs)
            #expect(try await ChannelStore(pool: fixture.pool).find(id: created.listing.channel.id)?.channel.status == .deleted)
        }
    }

    @Test func unknownGameAndChannelAreNotFound() async throws {
        try await RegistryFixture.with { fixture in
            let app = try await fixture.addApp()
            let registry = fixture.registry()
            let game = try await #require(throws: RegistryError.self) { try await registry.createChannel(gameID: "nope", app: app) }
            #expect(game.code == .notFound)
            let channel = try await #require(throws: RegistryError.self) { try await registry.deleteChannel(id: 4242, reason: .admin) }
            #expect(channel.code == .notFound)
            #expect(fixture.simulator.receivedRequests().isEmpty)
        }
    }

    @Test func ensureCreatesOneChannelPerAutomaticAppEvenConcurrently() async throws {
        try await RegistryFixture.with { fixture in
            let auto = try await fixture.addApp("com.example.auto")
            _ = try await fixture.addApp("com.example.manual") { $0.autoChannels = false }
            let stored = try await fixture.addApp("com.example.stored") { $0.defaultStoragePolicy = .mostRecentMessageStored }
            try await fixture.addGame("g2")
            let registry = fixture.registry()
            let reports = try await withThrowingTaskGroup(of: EnsureReport.self) { group in
                for _ in 0..<4 { group.addTask { try await registry.ensureChannels(gameID: "g2") } }
                return try await group.reduce(into: [EnsureReport]()) { $0.append($1) }
            }
            #expect(reports.flatMap(\.created).count == 2)
            #expect(reports.allSatisfy { $0.failures.isEmpty && $0.results.count == 2 })
            #expect(fixture.simulatorChannels("com.example.auto").count == 1)
            #expect(fixture.simulatorChannels("com.example.stored").count == 1)
            #expect(fixture.simulatorChannels("com.example.manual").isEmpty)
            let storedChannels = try await ChannelStore(pool: fixture.pool).liveChannels(gameID: "g2", appID: stored.id)
            #expect(storedChannels.map(\.storagePolicy) == [.mostRecentMessageStored])
            let again = try await registry.ensureChannels(gameID: "g2")
            #expect(again.created.isEmpty)
            #expect(again.results.allSatisfy { if case .existing = $0.outcome { true } else { false } })
            #expect(try await ChannelStore(pool: fixture.pool).liveChannels(gameID: "g2", appID: auto.id).count == 1)
        }
    }

    @Test func ensureReportsOneAppsFailureAndServesTheOthers() async throws {
        try await RegistryFixture.with { fixture in
            _ = try await fixture.addApp("com.example.good")
            var broken = try await fixture.addApp("com.example.broken")
            // The simulator no longer accepts this app's bundle: it answers 403.
            try fixture.simulator.registerTeam(SimulatorTeam(
                teamID: broken.teamID, keyID: broken.keyID,
                publicKeyPEM: try P256PrivateKeyPEM.publicKey(of: broken.keyPath), bundleIDs: ["com.example.other"]))
            broken = try #require(try await AppStore(pool: fixture.pool).find(id: broken.id))
            try await fixture.addGame()
            let report = try await fixture.registry().ensureChannels(gameID: "g1")
            #expect(report.created.map(\.bundleID) == ["com.example.good"])
            let failure = try #require(report.failures.first)
            #expect(failure.app.id == broken.id)
            #expect(failure.error.code == .apnsRefused)
            #expect(failure.error.status == 403)
            #expect(failure.error.reason == "TopicMismatch")
        }
    }

    @Test func apnsFailureDuringCreateLeavesNothing() async throws {
        try await RegistryFixture.with { fixture in
            let app = try await fixture.addApp()
            try await fixture.addGame()
            try fixture.simulator.setFaults(SimulatorFaults(failNext: 1, failStatus: 503))
            let error = try await #require(throws: RegistryError.self) { try await fixture.registry().createChannel(gameID: "g1", app: app) }
            #expect(error.code == .apnsRefused)
            #expect(error.status == 503)
            #expect(error.message.contains("503 ServiceUnavailable"))
            #expect(fixture.simulatorChannels().isEmpty)
            #expect(try await ChannelStore(pool: fixture.pool).list(.init()).isEmpty)
        }
    }

    @Test func registryWriteFailureDeletesTheChannelAtAPNsAgain() async throws {
        try await RegistryFixture.with { fixture in
            let app = try await fixture.addApp()
            try await fixture.addGame()
            try await failBindingInserts(fixture)
            let error = try await #require(throws: RegistryError.self) { try await fixture.registry().createChannel(gameID: "g1", app: app) }
            #expect(error.code == .databaseUnavailable)
            #expect(error.message.contains("deleted at APNs again"))
            #expect(fixture.simulatorChannels().isEmpty)
            let requests = fixture.simulator.receivedRequests().map { "\($0.method) \($0.status ?? 0)" }
            #expect(requests == ["POST 201", "DELETE 204"])
            #expect(try await ChannelStore(pool: fixture.pool).list(.init()).isEmpty)
            #expect(try await ChannelStore(pool: fixture.pool).orphans(appID: app.id).isEmpty)
        }
    }

    @Test func anOrphanIsRecordedWhenTheCleanupFailsTooAndReconcileDeletesIt() async throws {
        try await RegistryFixture.with { fixture in
            let app = try await fixture.addApp()
            try await fixture.addGame()
            try await failBindingInserts(fixture)
            let simulator = fixture.simulator
            let interfering = InterferingChannelManagement(inner: fixture.client) {
                try simulator.setFaults(SimulatorFaults(failNext: 1, failStatus: 500))
            }
            let error = try await #require(throws: RegistryError.self) {
                try await fixture.registry(apns: interfering).createChannel(gameID: "g1", app: app)
            }
            #expect(error.message.contains("channel_orphans"))
            let leaked = fixture.simulatorChannels()
            #expect(leaked.count == 1)
            let orphans = try await ChannelStore(pool: fixture.pool).orphans(appID: app.id)
            #expect(Set(orphans) == leaked)
            // Recorded orphans count against the limit.
            #expect(try await ChannelStore(pool: fixture.pool).countAgainstLimit(appID: app.id) == 1)

            let report = try await fixture.registry().reconcile(app: app, fix: false)
            #expect(report.diff.orphans.map(\.apnsChannelID) == orphans)
            #expect(report.diff.orphans.allSatisfy { $0.recorded })
            #expect(fixture.simulatorChannels() == leaked)

            let fixed = try await fixture.registry().reconcile(app: app, fix: true)
            #expect(fixed.deletedOrphans == orphans)
            #expect(fixed.clearedOrphanRecords == orphans)
            #expect(fixture.simulatorChannels().isEmpty)
            #expect(try await ChannelStore(pool: fixture.pool).orphans(appID: app.id).isEmpty)
            #expect(try await fixture.registry().reconcile(app: app, fix: false).isClean)
        }
    }

    @Test func reconcileFindsOrphansAndGoneAndFixesThem() async throws {
        try await RegistryFixture.with { fixture in
            let app = try await fixture.addApp()
            try await fixture.addGame()
            let registry = fixture.registry()
            let kept = try await registry.createChannel(gameID: "g1", app: app, another: true)
            let vanishing = try await registry.createChannel(gameID: "g1", app: app, another: true)
            let credentials = try await fixture.credentials(app)
            let orphan = try #require(try await fixture.client.create(
                bundleID: app.bundleID, policy: .noMessageStored, credentials: credentials).channelID)
            _ = try await fixture.client.delete(
                bundleID: app.bundleID, channelID: vanishing.listing.channel.apnsChannelID, credentials: credentials)

            let report = try await registry.reconcile(app: app, fix: false)
            #expect(report.apnsChannelCount == 2)
            #expect(report.registryLiveCount == 2)
            #expect(report.diff.orphans.map(\.apnsChannelID) == [orphan])
            #expect(report.diff.gone.map(\.id) == [vanishing.listing.channel.id])
            #expect(fixture.simulatorChannels() == [kept.listing.channel.apnsChannelID, orphan])
            #expect(try await ChannelStore(pool: fixture.pool).find(id: vanishing.listing.channel.id)?.channel.status == .active)

            let fixed = try await registry.reconcile(app: app, fix: true)
            #expect(fixed.deletedOrphans == [orphan])
            #expect(fixed.markedGone == [vanishing.listing.channel.id])
            #expect(fixture.simulatorChannels() == [kept.listing.channel.apnsChannelID])
            #expect(try await ChannelStore(pool: fixture.pool).find(id: vanishing.listing.channel.id)?.channel.status == .gone)
            #expect(try await registry.reconcile(app: app, fix: true).isClean)
        }
    }

    @Test func reconcileLeavesTheOtherEnvironmentsChannelsAlone() async throws {
        try await RegistryFixture.with { fixture in
            let sandbox = try await fixture.addApp(environment: .sandbox)
            let production = try await fixture.addApp(environment: .production)
            try await fixture.addGame()
            let registry = fixture.registry()
            _ = try await registry.createChannel(gameID: "g1", app: production)
            // One APNs host serves both environments here, so sandbox's list includes production's channel.
            let report = try await registry.reconcile(app: sandbox, fix: true)
            #expect(report.apnsChannelCount == 1)
            #expect(report.isClean)
            #expect(fixture.simulatorChannels().count == 1)
        }
    }

    @Test func limitWarnsFromNinetyPercentAndRefusesBeforeAPNs() async throws {
        try await RegistryFixture.with { fixture in
            let app = try await fixture.addApp()
            try await fixture.addGame()
            let registry = fixture.registry(limit: 3)
            #expect(try await registry.createChannel(gameID: "g1", app: app, another: true).limitWarning == nil)
            #expect(try await registry.createChannel(gameID: "g1", app: app, another: true).limitWarning == nil)
            let warning = try #require(try await registry.createChannel(gameID: "g1", app: app, another: true).limitWarning)
            #expect(warning.contains("3 of 3 (100%)"))
            let before = fixture.simulator.receivedRequests().count
            let refused = try await #require(throws: RegistryError.self) { try await registry.createChannel(gameID: "g1", app: app, another: true) }
            #expect(refused.code == .channelLimitReached)
            #expect(refused.message.contains("3 of 3"))
            #expect(fixture.simulator.receivedRequests().count == before)
            #expect(fixture.simulatorChannels().count == 3)
        }
    }

    @Test func apnsOwnLimitIsReportedWithItsReason() async throws {
        try await RegistryFixture.with { fixture in
            let app = try await fixture.addApp()
            try await fixture.addGame()
            try fixture.simulator.setChannelLimit(1)
            let registry = fixture.registry()
            _ = try await registry.createChannel(gameID: "g1", app: app, another: true)
            let refused = try await #require(throws: RegistryError.self) { try await registry.createChannel(gameID: "g1", app: app, another: true) }
            #expect(refused.code == .apnsRefused)
            #expect(refused.status == 400)
            #expect(refused.reason == "CannotCreateChannelConfig")
            #expect(try await ChannelStore(pool: fixture.pool).list(.init()).count == 1)
        }
    }

    @Test func unusableKeyIsNamedWithoutItsContents() async throws {
        try await RegistryFixture.with { fixture in
            let app = try await fixture.addApp()
            try await fixture.addGame()
            let secret = try String(contentsOfFile: app.keyPath, encoding: .utf8)
            try "not a key".write(toFile: app.keyPath, atomically: true, encoding: .utf8)
            let error = try await #require(throws: RegistryError.self) { try await fixture.registry().createChannel(gameID: "g1", app: app) }
            #expect(error.code == .credentialsUnusable)
            #expect(error.message.contains(app.keyPath))
            #expect(!error.message.contains(secret))
            #expect(fixture.simulator.receivedRequests().isEmpty)
        }
    }

    /// Makes every `channel_bindings` insert of this test's schema fail, as a broken database would.
    private func failBindingInserts(_ fixture: RegistryFixture) async throws {
        try await fixture.pool.withConnection { connection in
            try await connection.executeScript(unsafeSQL: """
                CREATE FUNCTION refuse_binding() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN RAISE EXCEPTION 'bindings are refused by this test'; END $$;
                CREATE TRIGGER refuse_binding BEFORE INSERT ON channel_bindings FOR EACH ROW EXECUTE FUNCTION refuse_binding();
                """)
        }
    }
}

/// The public key of a `.p8` file, as PEM.
enum P256PrivateKeyPEM {
    static func publicKey(of path: String) throws -> String {
        try ScorecastCrypto.P256PrivateKey(contentsOfFile: path).publicKey.pem
    }
}
