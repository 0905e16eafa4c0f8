import Foundation
import HTTPServer
import Lifecycle
import Migrations
import PrometheusMetrics
import ScorecastLogging
@testable import Server
@testable import ServiceBase
import Testing
import TestSupport

/// Every route `serve` registers is either public on purpose (`APIRoutes.publicRoutes`, each
/// with its reason) or refuses a request without credentials — on its headers, before the body
/// it announced is sent. The walk reads the router's own table, so a route added later without
/// a gate fails here.
@Suite struct RouteAccessTests {
    static let opsToken = "route-walk-ops-token-0123456789"

    /// A value for each path parameter that passes the route's own format checks, so that
    /// what refuses the request is the missing credential.
    private static let samples = [
        "id": "ars-che", "game-id": "ars-che", "bundle-id": "com.example.scores",
        "install-id": "8C6E0F3A-1B2C-4D5E-8F90-123456789ABC", "kind": "team", "value": "Arsenal",
    ]

    private static func path(of pattern: String) -> String {
        pattern.split(separator: "/").map { segment in
            guard segment.hasPrefix("{"), segment.hasSuffix("}") else { return String(segment) }
            return samples[String(segment.dropFirst().dropLast())] ?? "x"
        }.reduce("") { $0 + "/" + $1 }
    }

    @Test func everyRouteIsPublicOnPurposeOrRefusesARequestWithoutCredentialsBeforeItsBody() async throws {
        try await PollerDatabase.with { db in
            let configuration = try Configuration.load(from: ["SCORECAST_OPS_TOKEN": Self.opsToken])
            let registry = MetricsRegistry()
            let logger = Logger(label: "routes", level: .critical)
            let router = try APIRoutes.router(
                configuration: configuration, pool: db.pool, migrator: Migrator(files: PollerDatabase.schemaFiles, logger: logger),
                registry: registry, metrics: try ScorecastMetrics(registry: registry), logger: logger)
            let table = router.table
            let names = Set(table.map { "\($0.method.rawValue) \($0.pattern)" })
            #expect(table.count > 20, "the walk sees the whole table (\(table.count) routes)")
            for name in APIRoutes.publicRoutes.keys {
                #expect(names.contains(name), "the public list names \(name), which is not a route")
            }
            // Patient limits: only an answer on the headers arrives within the read timeout.
            let server = HTTPServer(
                configuration: HTTPServerConfiguration(
                    host: "127.0.0.1", port: 0, connectionTimeoutSeconds: 600, threadCount: 2, bodyTimeoutSeconds: 600,
                    minimumBodyBytesPerSecond: 0),
                router: router, logger: logger)
            try server.start()
            let shutdown = ShutdownSignal()
            let running = Task { try await server.run(until: shutdown) }
            defer { shutdown.trigger() }
            var walked = 0
            for entry in table where APIRoutes.publicRoutes["\(entry.method.rawValue) \(entry.pattern)"] == nil {
                let name = "\(entry.method.rawValue) \(entry.pattern)"
                #expect(entry.isGated, "\(name) has no gate")
                // Headers announcing a body that never comes.
                let head = "\(entry.method.rawValue) \(Self.path(of: entry.pattern)) HTTP/1.1\r\nHost: x\r\n"
                    + "Content-Type: application/json\r\nContent-Length: 4096\r\n\r\n"
                let exchange = try await RawHTTP.exchange(port: server.port, parts: [Array(head.utf8)], readTimeout: 30)
                #expect(exchange.status == 401, "\(name) answered \(exchange.status.map(String.init) ?? "nothing") without credentials")
                walked += 1
            }
            #expect(walked == table.count - APIRoutes.publicRoutes.count)
            shutdown.trigger()
            try await running.value
        }
    }
}
