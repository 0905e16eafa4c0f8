import Clocks
import Foundation
import HTTPServer
import Postgres
import Registry
import ScorecastCore
import ScorecastLogging

/// The iOS app's API, under `/v1/apps/{bundle-id}/devices/{install-id}` (every route needs the
/// app's client key and counts against the device's and the address's rate limits):
///
/// | route | |
/// |---|---|
/// | `PUT …/devices/{install-id}` | register or refresh: `{environment, pushToStartToken?, osVersion, frequentUpdates?, locale?}` → 201 new, 200 known |
/// | `GET …/follows` | `{"follows": [{"kind": "team", "value": "Arsenal"}]}` |
/// | `PUT …/follows/{team\|league\|game}/{value}` | follow (201 new, 204 already) |
/// | `DELETE …/follows/{kind}/{value}` | unfollow (204, or 404 when not followed) |
/// | `PUT …/activities/{game-id}` | `{pushToken}`: the activity's own push token, replacing its previous one |
/// | `DELETE …/activities/{game-id}` | the activity ended (204) |
package struct AppDevicesEndpoint: Sendable {
    let store: DeviceStore
    let guardian: AppAPIGuard

    /// Creates the endpoint on `pool`, guarded by `guardian`; devices are seen at `clock`'s time.
    package init(pool: PostgresPool, guardian: AppAPIGuard, clock: any ServiceClock = SystemServiceClock()) {
        self.store = DeviceStore(pool: pool, clock: clock)
        self.guardian = guardian
    }

    /// Adds the routes to `router`.
    package func register(on router: inout Router) {
        let base = "/v1/apps/{bundle-id}/devices/{install-id}"
        let json = RouteOptions.json()
        // The client key and rate limits are checked on the headers, before any body is read.
        let checked = Gate { [self] request in
            let (bundleID, installID) = try ids(request)
            try await guardian.check(request, bundleID: bundleID, installID: installID)
            return nil
        }
        router.put(base, options: json, gate: checked) { request in
            let (bundleID, installID) = try ids(request)
            let registration = try DeviceRequests.registration(try request.jsonObject())
            return try await answer(request) {
                let (device, created) = try await store.register(bundleID: bundleID, installID: installID, registration)
                return try .json(DeviceView(device), status: created ? .created : .ok)
            }
        }
        router.get(base, gate: checked) { request in
            let (bundleID, installID) = try ids(request)
            return try await answer(request) {
                try .json(DeviceView(try await store.require(bundleID: bundleID, installID: installID)))
            }
        }
        router.get(base + "/follows", gate: checked) { request in
            let (bundleID, installID) = try ids(request)
            return try await answer(request) {
                let device = try await store.require(bundleID: bundleID, installID: installID)
                let follows = try await store.follows(deviceID: device.id).map { FollowView(kind: $0.kind.rawValue, value: $0.value) }
                return try .json(["follows": follows])
            }
        }
        router.put(base + "/follows/{kind}/{value}", gate: checked) { request in
            let (bundleID, installID) = try ids(request)
            let (kind, value) = try DeviceRequests.follow(request)
            return try await answer(request) {
                let device = try await store.require(bundleID: bundleID, installID: installID)
                let added = try await store.follow(deviceID: device.id, kind: kind, value: value)
                return added ? try .json(FollowView(kind: kind.rawValue, value: value), status: .created) : .empty()
            }
        }
        router.delete(base + "/follows/{kind}/{value}", gate: checked) { request in
            let (bundleID, installID) = try ids(request)
            let (kind, value) = try DeviceRequests.follow(request)
            return try await answer(request) {
                let device = try await store.require(bundleID: bundleID, installID: installID)
                guard try await store.unfollow(deviceID: device.id, kind: kind, value: value) else {
                    throw Problem.notFound("the device does not follow the \(kind.rawValue) \(value)")
                }
                return .empty()
            }
        }
        router.put(base + "/activities/{game-id}", options: json, gate: checked) { request in
            let (bundleID, installID) = try ids(request)
            let gameID = try request.pathParameter("game-id")
            guard (try? GameDraft.checkID(gameID)) != nil else { throw Problem.notFound("there is no game \(gameID.prefix(140))") }
            let token = try DeviceRequests.activityToken(try request.jsonObject())
            return try await answer(request) {
                let device = try await store.require(bundleID: bundleID, installID: installID)
                let registered = try await store.registerActivityToken(deviceID: device.id, gameID: gameID, token: token)
                return try .json(["game": gameID, "status": "active", "replacedToken": registered.replaced ? "yes" : "no"])
            }
        }
        router.delete(base + "/activities/{game-id}", gate: checked) { request in
            let (bundleID, installID) = try ids(request)
            let gameID = try request.pathParameter("game-id")
            return try await answer(request) {
                let device = try await store.require(bundleID: bundleID, installID: installID)
                try await store.endActivity(deviceID: device.id, gameID: gameID)
                return .empty()
            }
        }
    }

    private func ids(_ request: HTTPRequest) throws -> (bundleID: String, installID: String) {
        (try DeviceRequests.bundleID(request), try DeviceRequests.installID(request))
    }

    /// Runs a store call, turning its refusals and database failures into problems.
    private func answer(_ request: HTTPRequest, _ body: () async throws -> HTTPResponse) async throws -> HTTPResponse {
        do {
            return try await body()
        } catch let refusal as DeviceStore.Refusal {
            switch refusal {
            case .unknownApp(let bundleID, let environment):
                throw Problem.unprocessable(
                    "no app \(bundleID) is registered for the \(environment.rawValue) environment",
                    errors: [.init(field: "environment", detail: "no app \(bundleID) in \(environment.rawValue)")])
            case .unknownDevice(let installID):
                throw Problem.notFound("no device \(installID) is registered: PUT the device first")
            case .unknownGame(let gameID):
                throw Problem.notFound("there is no game \(gameID)")
            case .tooManyFollows(let limit):
                throw Problem.unprocessable("a device follows at most \(limit) teams, leagues and games",
                                            errors: [.init(field: "value", detail: "over the limit of \(limit) follows")])
            }
        } catch let error as PostgresError {
            request.logger.error("device store failed", ["error": error.message])
            throw Problem.serviceUnavailable("the device registry is unavailable")
        }
    }

    /// A device as the API shows it (tokens are not echoed).
    struct DeviceView: Encodable {
        let installId: String
        let bundleId: String
        let environment: String
        let hasPushToStartToken: Bool
        let pushToStartTokenPrunedReason: String?
        let osVersion: String
        let supportsChannels: Bool
        let frequentUpdates: Bool
        let locale: String
        let lastSeenAt: Date

        init(_ device: DeviceRecord) {
            installId = device.installID
            bundleId = device.bundleID
            environment = device.environment.rawValue
            hasPushToStartToken = device.pushToStartToken != nil
            pushToStartTokenPrunedReason = device.tokenPrunedReason
            osVersion = device.osVersion
            supportsChannels = device.supportsChannels
            frequentUpdates = device.frequentUpdates
            locale = device.locale
            lastSeenAt = device.lastSeenAt
        }
    }

    /// One follow.
    struct FollowView: Encodable {
        let kind: String
        let value: String
    }
}
