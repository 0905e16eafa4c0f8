import Foundation
import HTTPServer
@testable import Server
import Testing
import TestSupport

@Suite("GET /v1/games/{id}/channels")
struct ChannelsEndpointTests {
    private func get(_ router: Router, _ path: String, _ query: [(String, String)]) async throws -> (Int, [String: Any]) {
        let response = try await TestClient.router(router).get(TestClient.target(path, query: query))
        return (response.status, try response.json())
    }

    @Test func answersTheActiveChannelsOfTheAppForTheGame() async throws {
        try await RegistryFixture.with { fixture in
            let sandbox = try await fixture.addApp(environment: .sandbox)
            let production = try await fixture.addApp(environment: .production)
            let other = try await fixture.addApp("com.example.other")
            try await fixture.addGame("g1")
            try await fixture.addGame("g2")
            let registry = fixture.registry()
            let a = try await registry.createChannel(gameID: "g1", app: sandbox)
            let b = try await registry.createChannel(gameID: "g1", app: production, policy: .mostRecentMessageStored)
            let deleted = try await registry.createChannel(gameID: "g1", app: production)
            _ = try await registry.deleteChannel(id: deleted.listing.channel.id, reason: .admin)
            _ = try await registry.createChannel(gameID: "g1", app: other)
            _ = try await registry.createChannel(gameID: "g2", app: sandbox)
            let light = try await registry.lightChannel(gameID: "g1", app: production)

            var router = Router()
            ChannelsEndpoint(pool: fixture.pool).register(on: &router)
            let (status, body) = try await get(router, "/v1/games/g1/channels", [("bundle-id", "com.example.scores")])
            #expect(status == 200)
            #expect(body["game"] as? String == "g1")
            let channels = try #require(body["channels"] as? [[String: String]])
            // Each channel says its tier, so an app need not guess which of a game's channels to take.
            #expect(channels == [
                ["channelId": b.listing.channel.apnsChannelID, "bundleId": "com.example.scores", "environment": "production",
                 "storagePolicy": "most-recent", "tier": "standard"],
                ["channelId": light.listing.channel.apnsChannelID, "bundleId": "com.example.scores", "environment": "production",
                 "storagePolicy": "no-store", "tier": "light"],
                ["channelId": a.listing.channel.apnsChannelID, "bundleId": "com.example.scores", "environment": "sandbox",
                 "storagePolicy": "no-store", "tier": "standard"],
            ])

            let (_, filtered) = try await get(router, "/v1/games/g1/channels", [("bundle-id", "com.example.scores"), ("environment", "sandbox")])
            #expect((filtered["channels"] as? [[String: String]])?.map { $0["channelId"] } == [a.listing.channel.apnsChannelID])

            let (emptyStatus, empty) = try await get(router, "/v1/games/g2/channels", [("bundle-id", "com.example.unknown")])
            #expect(emptyStatus == 200)
            #expect((empty["channels"] as? [Any])?.isEmpty == true)
        }
    }

    @Test func problems() async throws {
        try await RegistryFixture.with { fixture in
            try await fixture.addGame("g1")
            var router = Router()
            ChannelsEndpoint(pool: fixture.pool).register(on: &router)

            let (unknown, unknownBody) = try await get(router, "/v1/games/nope/channels", [("bundle-id", "com.example.scores")])
            #expect(unknown == 404)
            #expect((unknownBody["detail"] as? String)?.contains("nope") == true)

            let (missing, missingBody) = try await get(router, "/v1/games/g1/channels", [])
            #expect(missing == 400)
            #expect((missingBody["errors"] as? [[String: Any]])?.first?["field"] as? String == "bundle-id"
                || (missingBody["errors"] as? [[String: Any]])?.first?["pointer"] != nil)

            let (bad, _) = try await get(router, "/v1/games/g1/channels", [("bundle-id", "not a bundle")])
            #expect(bad == 400)
            let (badEnvironment, _) = try await get(router, "/v1/games/g1/channels", [("bundle-id", "com.example.scores"), ("environment", "staging")])
            #expect(badEnvironment == 400)
        }
    }
}
