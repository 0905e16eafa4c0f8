import APNsCore
import HTTPServer
import Postgres
import Registry
import ScorecastCore

/// `GET /v1/games/{id}/channels?bundle-id=…[&environment=…]`: the channel(s) an iOS app
/// subscribes its Live Activity to (`pushType: .channel(id)`) for a game, and their storage
/// policy.
///
/// ```json
/// {"game": "epl-2025-ars-che",
///  "channels": [{"channelId": "dHN0LTE…", "bundleId": "com.example.scores",
///                "environment": "production", "storagePolicy": "no-store", "tier": "standard"}]}
/// ```
/// `tier` is `standard` (the channel for most fans) or `light` (priority 10 only for kick-off,
/// goals and full time: for fans who turned frequent updates off).
/// Only active channels are listed; a known game without one answers an empty list. An unknown
/// game is a `404` problem; a missing or malformed `bundle-id` (or `environment`) a `400`.
package struct ChannelsEndpoint: Sendable {
    let pool: PostgresPool

    /// Creates the endpoint on `pool`.
    package init(pool: PostgresPool) { self.pool = pool }

    /// The JSON body.
    struct Body: Encodable {
        let game: String
        let channels: [Channel]
    }

    /// One channel in the body.
    struct Channel: Encodable {
        let channelId: String
        let bundleId: String
        let environment: String
        let storagePolicy: String
        let tier: String
    }

    /// Adds the route to `router`.
    package func register(on router: inout Router) {
        router.get("/v1/games/{id}/channels") { request in
            let gameID = try request.pathParameter("id")
            guard let bundleID = request.query("bundle-id") else {
                throw Problem.badRequest(
                    "the bundle-id query parameter is required", errors: [.init(field: "bundle-id", detail: "is required")])
            }
            guard AppValidation.isValidBundleID(bundleID) else {
                throw Problem.badRequest(
                    "bundle-id is not a bundle id", errors: [.init(field: "bundle-id", detail: "must look like com.example.app")])
            }
            var environment: APNsEnvironment?
            if let name = request.query("environment") {
                guard let value = APNsEnvironment(rawValue: name) else {
                    throw Problem.badRequest(
                        "environment must be sandbox or production", errors: [.init(field: "environment", detail: "must be sandbox or production")])
                }
                environment = value
            }
            do {
                guard (try? GameDraft.checkID(gameID)) != nil, try await GameStore(pool: pool).find(id: gameID) != nil else {
                    throw Problem.notFound("there is no game \(gameID)")
                }
                let channels = try await ChannelStore(pool: pool).subscribable(gameID: gameID, bundleID: bundleID, environment: environment)
                return try .json(Body(game: gameID, channels: channels.map {
                    Channel(channelId: $0.listing.channel.apnsChannelID, bundleId: $0.listing.bundleID,
                            environment: $0.listing.environment.rawValue,
                            storagePolicy: RegistryNames.storagePolicy($0.listing.channel.storagePolicy), tier: $0.tier)
                }))
            } catch let error as PostgresError {
                request.logger.error("channel lookup failed", ["error": error.message])
                throw Problem.serviceUnavailable("the registry is unavailable")
            }
        }
    }
}
