import Clocks
import Foundation
import Postgres
@testable import Registry
@testable import Server
import Testing

/// The duties that go through the registry to APNs — retire, ensure, reconcile — against a real
/// schema and the APNs simulator over TLS.
@Suite struct ChannelDutiesTests {
    func status(_ fixture: RegistryFixture, _ id: Int64) async throws -> ChannelRecord.Status? {
        try await ChannelStore(pool: fixture.pool).find(id: id)?.channel.status
    }

    @Test func channelsOfAFinishedGameRetireThenAreDeletedAtAPNsAfterTheGrace() async throws {
        try await RegistryFixture.with { fixture in
            let app = try await fixture.addApp()
            try await fixture.addGame("done")
            try await fixture.addGame("playing")
            let registry = fixture.registry()
            let finished = try await registry.createChannel(gameID: "done", app: app).listing.channel
            let live = try await registry.createChannel(gameID: "playing", app: app).listing.channel
            let clock = ManualServiceClock(Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down)))  // whole seconds, as Postgres stores them
            try await fixture.pool.execute("""
                UPDATE games SET status = 'final', finished_at = \(clock.now().addingTimeInterval(-1800)) WHERE id = 'done'
                """)
            let duty = RetireDuty(registry: registry, interval: .seconds(60), grace: .seconds(3600), channelLimit: 10_000)

            var report = try await duty.run(at: clock.now())
            #expect(report["marked_retiring"] == 1 && report["deleted"] == 0)
            #expect(try await status(fixture, finished.id) == .retiring)
            #expect(fixture.simulatorChannels() == [finished.apnsChannelID, live.apnsChannelID])

            clock.advance(by: .seconds(1799))
            #expect(try await duty.run(at: clock.now())["deleted"] == 0)
            clock.advance(by: .seconds(1))
            report = try await duty.run(at: clock.now())
            #expect(report["deleted"] == 1 && report["delete_failed"] == 0, "\(report) \(report.warnings)")
            #expect(try await status(fixture, finished.id) == .deleted)
            #expect(try await status(fixture, live.id) == .active)
            #expect(fixture.simulatorChannels() == [live.apnsChannelID])
            #expect(try await duty.run(at: clock.now()).isQuiet)
        }
    }

    @Test func theRetireDutyWarnsAsAnAppNearsItsChannelLimit() async throws {
        try await RegistryFixture.with { fixture in
            let app = try await fixture.addApp()
            try await fixture.addGame("g1")
            let registry = fixture.registry()
            for _ in 0..<9 { _ = try await registry.createChannel(gameID: "g1", app: app, another: true) }
            let duty = RetireDuty(registry: registry, interval: .seconds(60), grace: .seconds(3600), channelLimit: 10)
            let report = try await duty.run(at: Date())
            #expect(report.warnings == ["com.example.scores (sandbox) is near its channel limit: 9 of 10 (90%)"])
            #expect(try await duty.run(at: Date()).warnings.isEmpty)   // once, not every round
        }
    }

    @Test func gamesWithoutChannelsGetThemAndFailingAppsBackOff() async throws {
        try await RegistryFixture.with { fixture in
            let app = try await fixture.addApp()
            let manual = try await fixture.addApp("com.example.manual") { $0.autoChannels = false }
            let broken = try await fixture.addApp("com.example.broken")
            try await fixture.pool.execute("UPDATE apps SET key_path = '/nonexistent/AuthKey.p8' WHERE id = \(broken.id)")
            try await fixture.addGame("new")
            try await fixture.addGame("over")
            try await fixture.pool.execute("UPDATE games SET status = 'final', finished_at = now() WHERE id = 'over'")
            let clock = ManualServiceClock(Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down)))  // whole seconds, as Postgres stores them
            let duty = EnsureChannelsDuty(registry: fixture.registry(), interval: .seconds(30))

            var report = try await duty.run(at: clock.now())
            #expect(report["games"] == 1 && report["created"] == 1 && report["failed"] == 1)
            #expect(report.failures.map(\.cause) == ["creating channels in com.example.broken (sandbox)"])
            #expect(report.failures.first?.fields["game"] == "new")
            let channels = try await ChannelStore(pool: fixture.pool).list(.init(gameID: "new"))
            #expect(channels.map(\.channel.appID) == [app.id])
            #expect(try await ChannelStore(pool: fixture.pool).list(.init(gameID: "over")).isEmpty)
            #expect(!channels.contains { $0.channel.appID == manual.id })

            report = try await duty.run(at: clock.now().addingTimeInterval(10))
            #expect(report["games"] == 0 && report["backing_off"] == 1)     // the broken app's game waits
            try await fixture.pool.execute("DELETE FROM apps WHERE id = \(broken.id)")
            clock.advance(by: .seconds(61))
            report = try await duty.run(at: clock.now())
            #expect(report["games"] == 0 && report["backing_off"] == 0)     // nothing is missing any more
            #expect(try await ChannelStore(pool: fixture.pool).list(.init(gameID: "new")).count == 1)
        }
    }

    @Test func aChannelAnAdminDeletedIsNeverRecreatedUntilCreatedByHand() async throws {
        try await RegistryFixture.with { fixture in
            let app = try await fixture.addApp()
            try await fixture.addGame("g1")
            let registry = fixture.registry()
            let duty = EnsureChannelsDuty(registry: registry, interval: .seconds(30))
            #expect(try await duty.run(at: Date())["created"] == 1)
            let first = try #require(try await ChannelStore(pool: fixture.pool).liveChannels(gameID: "g1", appID: app.id).first)

            let deleted = try await registry.deleteChannel(id: first.id, reason: .admin)
            #expect(deleted.outcome == .deleted && deleted.optedOutGames == ["g1"])
            let later = try await duty.run(at: Date().addingTimeInterval(3600))
            #expect(later["games"] == 0 && later["created"] == 0, "\(later)")
            let ensured = try await registry.ensureChannels(gameID: "g1")
            #expect(ensured.results.map(\.outcome) == [.optedOut])
            #expect(fixture.simulatorChannels().isEmpty)

            // Created by hand: the opt-out is lifted; a second create returns the same channel.
            let again = try await registry.createChannel(gameID: "g1", app: app)
            #expect(!again.alreadyExisted)
            let same = try await registry.createChannel(gameID: "g1", app: app)
            #expect(same.alreadyExisted && same.listing.channel.id == again.listing.channel.id)
            let stored = try await registry.createChannel(gameID: "g1", app: app, policy: .mostRecentMessageStored)
            #expect(!stored.alreadyExisted)
            let another = try await registry.createChannel(gameID: "g1", app: app, another: true)
            #expect(!another.alreadyExisted)
            #expect(fixture.simulatorChannels().count == 3)
            #expect(try await registry.ensureChannels(gameID: "g1").created.isEmpty)

            // Retirement of a finished game's channel records no opt-out.
            let retired = try await registry.deleteChannel(id: another.listing.channel.id, reason: .retired)
            #expect(retired.optedOutGames.isEmpty)
        }
    }

    @Test func reconcileReportsOnlyUnlessAllowedToFix() async throws {
        try await RegistryFixture.with { fixture in
            let app = try await fixture.addApp()
            try await fixture.addGame("g1")
            let kept = try await fixture.registry().createChannel(gameID: "g1", app: app).listing.channel
            let orphan = try #require(try await fixture.client.create(
                bundleID: app.bundleID, policy: .noMessageStored, credentials: try await fixture.credentials(app)).channelID)

            let reporting = ReconcileDuty(registry: fixture.registry(), interval: .seconds(900), fix: false)
            var report = try await reporting.run(at: Date())
            #expect(report["apps"] == 1 && report["orphans"] == 1 && report["orphans_deleted"] == 0)
            #expect(report.warnings.first?.contains("reporting only") == true)
            #expect(fixture.simulatorChannels() == [kept.apnsChannelID, orphan])

            let fixing = ReconcileDuty(registry: fixture.registry(), interval: .seconds(900), fix: true)
            report = try await fixing.run(at: Date())
            #expect(report["orphans_deleted"] == 1)
            #expect(fixture.simulatorChannels() == [kept.apnsChannelID])
            #expect(try await fixing.run(at: Date()).warnings.isEmpty)
        }
    }
}
