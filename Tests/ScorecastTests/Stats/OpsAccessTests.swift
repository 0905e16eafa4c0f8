import DeliveryEngine
import Foundation
import ScorecastCore
import HTTPServer
import Lifecycle
import PrometheusMetrics
import ScorecastLogging
@testable import Server
@testable import Statistics
import Testing
import TestSupport

/// `SCORECAST_OPS_TOKEN` guards the operator routes; app-facing reads stay public; `serve`
/// refuses an open exposure on a public address.
@Suite struct OpsAccessTests {
    static let token = "0123456789abcdef-ops-token"

    /// The real routes on a real server: stats and dashboard guarded by `access`, the app
    /// route (`/v1/games/{id}/channels`) beside them.
    private func withServer(_ access: OpsAccess, _ body: (String, Router) async throws -> Void) async throws {
        try await PollerDatabase.with { db in
            var router = Router()
            StatsEndpoints(
                query: StatsQuery(pool: db.pool, budgetProfiles: BudgetProfiles(standardPerHour: 12, frequentPerHour: 60), channelLimit: 4),
                registry: MetricsRegistry(), refresher: nil, access: access
            ).register(on: &router)
            ChannelsEndpoint(pool: db.pool).register(on: &router)
            let server = HTTPServer(configuration: .init(host: "127.0.0.1", port: 0, threadCount: 2), router: router, logger: Logger(label: "ops", level: .warning))
            try server.start()
            let shutdown = ShutdownSignal()
            let task = Task { try await server.run(until: shutdown) }
            defer { shutdown.trigger() }
            try await body("http://127.0.0.1:\(server.port)", router)
            shutdown.trigger()
            try await task.value
        }
    }

    private static let guarded = ["/metrics", "/v1/stats", "/v1/stats/live", "/v1/games/nope/stats", "/dashboard"]

    @Test func withoutATokenEverythingIsOpen() async throws {
        try await withServer(OpsAccess(token: nil)) { base, _ in
            for path in Self.guarded {
                let status = try await TestClient.live(base).get(path).status
                #expect(status == 200 || status == 404, "\(path) answered \(status)")
            }
        }
    }

    @Test func withATokenOpsRoutesNeedItAndAppRoutesDoNot() async throws {
        try await withServer(OpsAccess(token: Self.token)) { base, router in
            for path in Self.guarded {
                let anonymous = try await TestClient.live(base).get(path)
                #expect(anonymous.status == 401, "\(path) answered \(anonymous.status) without a token")
                let wrong = try await TestClient.live(base).get(path, headers: ["Authorization": "Bearer \(Self.token)x"])
                #expect(wrong.status == 401, "\(path) answered \(wrong.status) with a wrong token")
                let right = try await TestClient.live(base).get(path, headers: ["Authorization": "Bearer \(Self.token)"])
                #expect(right.status == 200 || right.status == 404, "\(path) answered \(right.status) with the token")
            }
            let metrics = try await TestClient.live(base).get("/metrics")
            #expect(metrics.headers["www-authenticate"]?.hasPrefix("Bearer") == true)
            #expect(metrics.headers["content-type"] == "application/problem+json")
            // The dashboard shows its login form instead.
            let page = try await TestClient.live(base).get("/dashboard")
            #expect(String(decoding: page.body, as: UTF8.self).contains("action=\"/dashboard/login\""))
            // What iOS apps read stays public.
            let appRead = try await TestClient.live(base).get("/v1/games/nope/channels?bundle-id=com.example.scores").status
            #expect(appRead == 404, "the app route answered \(appRead)")

            // The login form: a wrong token shows it again; the right one sets a cookie that
            // opens the dashboard and the routes its script fetches.
            let failed = try await router.respond(to: HTTPRequest(method: .post, path: "/dashboard/login", body: Array("token=nope".utf8)))
            #expect(failed.status == .unauthorized)
            let login = try await router.respond(to: HTTPRequest(
                method: .post, path: "/dashboard/login", body: Array("token=\(Self.token)".utf8)))
            #expect(login.status == .seeOther)
            let setCookie = try #require(login.headers["Set-Cookie"])
            #expect(setCookie.contains("HttpOnly") && setCookie.contains("SameSite=Strict"))
            #expect(!setCookie.contains(Self.token), "the cookie holds a MAC of the token, not the token")
            let cookie = String(setCookie.prefix { $0 != ";" })
            #expect(try await TestClient.live(base).get("/dashboard", headers: ["Cookie": cookie]).status == 200)
            #expect(try await TestClient.live(base).get("/v1/stats", headers: ["Cookie": "other=1; " + cookie]).status == 200)
            #expect(try await TestClient.live(base).get("/v1/stats", headers: ["Cookie": cookie + "0"]).status == 401)
        }
    }

    @Test func anOpenExposureOnAPublicAddressIsRefused() {
        #expect(OpsAccess.exposureProblem(host: "127.0.0.1", token: nil, opsPublic: false) == nil)
        #expect(OpsAccess.exposureProblem(host: "127.0.0.2", token: nil, opsPublic: false) == nil)
        #expect(OpsAccess.exposureProblem(host: "::1", token: nil, opsPublic: false) == nil)
        #expect(OpsAccess.exposureProblem(host: "0.0.0.0", token: Self.token, opsPublic: false) == nil)
        #expect(OpsAccess.exposureProblem(host: "0.0.0.0", token: nil, opsPublic: true) == nil)
        let problem = try? #require(OpsAccess.exposureProblem(host: "0.0.0.0", token: nil, opsPublic: false))
        #expect(problem?.contains("SCORECAST_OPS_TOKEN") == true && problem?.contains("SCORECAST_OPS_PUBLIC") == true)
        #expect(OpsAccess.exposureProblem(host: "::", token: nil, opsPublic: false) != nil)
        #expect(OpsAccess.exposureProblem(host: "10.0.0.5", token: nil, opsPublic: false) != nil)
    }

    @Test func serveRefusesToStartOpenOnAPublicAddress() async throws {
        let state = FileManager.default.temporaryDirectory.appendingPathComponent("scorecast-ops-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: state) }
        let result = try await ScorecastProcess.run(["serve"], environment: [
            "SCORECAST_HTTP_HOST": "0.0.0.0", "SCORECAST_HTTP_PORT": "0", "SCORECAST_STATE_DIR": state.path,
        ])
        #expect(result.code == 2)
        #expect(result.stderr.contains("SCORECAST_OPS_TOKEN"))
        // A token that is too short is refused without being echoed.
        let short = try await ScorecastProcess.run(["config"], environment: ["SCORECAST_OPS_TOKEN": "short-secret"])
        #expect(short.code != 0 && !(short.stdout + short.stderr).contains("short-secret"))
    }
}
