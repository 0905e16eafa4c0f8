import Clocks
@testable import Devices
import Foundation
import HTTPServer
import ScorecastCore
import TestSupport

/// The app API on a `RegistryFixture`'s database, answered in-process by the real router, with
/// a client key for `com.example.scores` and an injectable clock for the rate limits.
struct AppAPIHarness {
    let fixture: RegistryFixture
    let router: Router
    let key: String
    static let bundleID = "com.example.scores"

    /// The harness; `perMinute`/`burst` set the per-device limit (the address limit is wide);
    /// the limits and the endpoint run on `clock`.
    static func make(_ fixture: RegistryFixture, perMinute: Int = 6_000, burst: Int = 1_000,
                     clock: any ServiceClock = SystemServiceClock()) async throws -> AppAPIHarness {
        let store = ClientKeyStore(pool: fixture.pool)
        let guardian = AppAPIGuard(
            authenticator: ClientAuthenticator(lookup: { try await store.find(prefix: $0) }),
            perDevice: RequestRateLimiter(perMinute: perMinute, burst: burst, clock: clock),
            perAddress: RequestRateLimiter(perMinute: 100_000, burst: 10_000, clock: clock))
        var router = Router()
        AppDevicesEndpoint(pool: fixture.pool, guardian: guardian, clock: clock).register(on: &router)
        GamesEndpoint(pool: fixture.pool, guardian: guardian).register(on: &router)
        let (_, token) = try await store.create(bundleID: bundleID, name: "ios")
        return AppAPIHarness(fixture: fixture, router: router, key: token.text)
    }

    /// Answers a request through the router; problems are rendered as the server would.
    func call(_ method: HTTPMethod, _ path: String, json: String? = nil, query: [(String, String)] = [],
              headers: HTTPHeaders? = nil, key: String? = nil) async throws -> (status: Int, headers: [String: String], json: [String: Any]) {
        var sent = headers ?? ["Authorization": "Bearer \(key ?? self.key)"]
        if json != nil { sent.replaceOrAdd("Content-Type", "application/json") }
        let response = try await TestClient.router(router).execute(
            method, TestClient.target(path, query: query), headers: sent, body: Array((json ?? "").utf8), remoteAddress: "192.0.2.7")
        return (response.status, response.headers, response.body.isEmpty ? [:] : try response.json())
    }

    /// Registers a device and returns its path.
    @discardableResult
    func register(_ installID: String, token: String? = Self.token(1), os: String = "18.1", frequent: Bool = true,
                  environment: String = "sandbox") async throws -> String {
        let tokenJSON = token.map { "\"\($0)\"" } ?? "null"
        let answer = try await call(.put, "/v1/apps/\(Self.bundleID)/devices/\(installID)", json: """
            {"environment": "\(environment)", "pushToStartToken": \(tokenJSON), "osVersion": "\(os)", "frequentUpdates": \(frequent), "locale": "en_GB"}
            """)
        guard answer.status == 201 || answer.status == 200 else { throw HarnessError("register \(installID): \(answer.status) \(answer.json)") }
        return "/v1/apps/\(Self.bundleID)/devices/\(installID)"
    }

    /// A distinct 64-hex-digit token.
    static func token(_ n: Int) -> String {
        String(format: "%064x", n)
    }

    struct HarnessError: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }
}
