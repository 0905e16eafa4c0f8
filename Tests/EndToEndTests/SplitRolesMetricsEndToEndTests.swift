import EndToEndSupport
import Foundation
import Testing
import TestSupport

/// The roles in processes of their own, as the Kubernetes manifests and the systemd role units
/// lay them out: `serve --roles api` and `serve --roles worker,poller` on one Postgres. Each
/// process serves its own metrics (the worker's sends on the worker's ops listener), and the
/// database-wide gauges appear once across both.
@Suite("End to end: metrics of split roles", .serialized)
struct SplitRolesMetricsEndToEndTests {
    static func opsURL(_ process: ScorecastProcess) async throws -> String {
        let line = try await process.waitForLine(containing: "ops listener")
        return try #require(line.firstMatch(of: /http:\/\/127\.0\.0\.1:[0-9]+/).map { String($0.output) }, "\(line)")
    }

    /// The families the database gauges export.
    static let databaseGauges = [
        "scorecast_outbox_pending", "scorecast_outbox_leased", "scorecast_outbox_oldest_pending_age_seconds", "scorecast_channels",
        "scorecast_apps_paused", "scorecast_games_live", "scorecast_last_event_received_timestamp_seconds",
        "scorecast_database_gauges_refreshed_timestamp_seconds",
    ]

    @Test("api and worker,poller apart: the worker's /metrics counts the sends /v1/stats counts; the outbox gauges appear once")
    func splitRolesExportTheirOwnMetrics() async throws {
        try await RegistryE2E.with { e2e in
            let (channelID, key) = try await DeliveryEndToEndTests.prepare(e2e)
            let api = try DeliveryEndToEndTests.serve(e2e, roles: "api")
            let backend = try DeliveryEndToEndTests.serve(e2e, roles: "worker,poller")
            let url = try await DeliveryEndToEndTests.apiURL(api)
            let ops = try await Self.opsURL(backend)
            #expect(!backend.errorOutput.contains("HTTP API listening"))

            // Liveness and readiness of the process without the API, on its ops listener.
            #expect(try await TestClient.live(ops).get("/healthz").status == 200)
            let ready = try await TestClient.live(ops).get("/readyz")
            #expect(ready.status == 200, "\(String(decoding: ready.body, as: UTF8.self))")
            #expect(try await TestClient.live(ops).get("/v1/stats").status == 404, "the API's routes stay in the api role")

            for seq in 1...2 {
                let goal = MetricsEndToEndTests.event("g\(seq)", seq: seq, kind: "score", home: seq, clock: "\(seq * 10)'")
                #expect(try await MetricsEndToEndTests.post(url, key: key, goal) == 202)
            }
            try await eventually("both goals are sent and recorded") {
                let pending = try await e2e.pool.query("SELECT 1 FROM outbox").count
                let written = try await e2e.pool.query("SELECT 1 FROM deliveries").count
                let answered = DeliveryEndToEndTests.broadcasts(e2e, to: channelID).filter { $0.status != nil }.count
                return pending == 0 && written == answered && answered >= 1
            }
            let log = DeliveryEndToEndTests.broadcasts(e2e, to: channelID).filter { $0.status != nil }
            let stats = try jsonObject(try await TestClient.live(url).get("/v1/stats?window=1h").body)
            let totals = try #require(stats["totals"] as? [String: Any])
            let sends = try #require(totals["sends"] as? [String: Int])
            let events = try #require(totals["events"] as? [String: Int])
            #expect(sends["total"] == log.count && sends["accepted"] == log.count { $0.status == 200 }, "\(sends)")

            // The worker's counters are incremented just after the outcomes are written, and the
            // poller exports the database gauges once it leads: wait for both.
            var worker: [MetricsEndToEndTests.Sample] = []
            try await eventually("the worker's /metrics has counted every send, and the poller leads") {
                worker = try await MetricsEndToEndTests.scrape(ops)
                return Int(MetricsEndToEndTests.sum(worker, "scorecast_broadcasts_sent_total")) == sends["total"]
                    && worker.contains { $0.name == "scorecast_outbox_pending" }
            }
            let front = try await MetricsEndToEndTests.scrape(url)
            func metric(_ samples: [MetricsEndToEndTests.Sample], _ name: String, _ labels: [String: String] = [:]) -> Int {
                Int(MetricsEndToEndTests.sum(samples, name, where: labels))
            }
            let app = ["app": "com.example.live"]

            // Sends and latencies: on the worker's listener, equal to /v1/stats and the simulator's log.
            #expect(metric(worker, "scorecast_broadcasts_sent_total", app.merging(["outcome": "accepted"]) { $1 }) == sends["accepted"])
            #expect(metric(worker, "scorecast_broadcasts_sent_total", ["priority": "10"]) == sends["priority10"])
            #expect(metric(worker, "scorecast_broadcasts_sent_total", ["priority": "5"]) == sends["priority5"])
            #expect(metric(worker, "scorecast_apns_response_seconds_count", app) == log.count)
            #expect(metric(worker, "scorecast_ingest_to_send_seconds_count", app) == log.count)
            #expect(metric(worker, "scorecast_apns_connections", ["pool": "send"]) >= 1)
            // Ingest is counted where it happens: the API.
            #expect(metric(front, "scorecast_events_ingested_total", ["outcome": "accepted"]) == events["accepted"])
            #expect(events["accepted"] == 2, "\(events)")
            #expect(metric(worker, "scorecast_events_ingested_total") == 0)
            #expect(metric(front, "scorecast_broadcasts_sent_total") == 0)

            // The database gauges: once across both processes, with the database's values.
            for name in Self.databaseGauges {
                let count = (front + worker).filter { $0.family == name }.map(\.labels).count
                #expect(count >= 1 && !front.contains { $0.family == name }, "\(name): \(count) series, in the api process too?")
            }
            #expect(metric(worker, "scorecast_outbox_pending") == 0)
            #expect(metric(worker, "scorecast_games_live") == 1)
            #expect(metric(worker, "scorecast_channels", app) == 1)
            #expect(metric(worker, "scorecast_apps_paused", app) == 0)

            // The database gauges the shipped Grafana dashboard and alert rules name are exported
            // (the rest, by MetricsEndToEndTests, whose scenario moves every counter).
            let named = try await MetricsEndToEndTests.metricsNamedInDeployFiles().filter(Self.databaseGauges.contains)
            #expect(named.count >= 5, "\(named)")
            let exported = Set(worker.map(\.family))
            for name in named { #expect(exported.contains(name), "\(name) is used by Deploy/ but not exported") }

            for process in [api, backend] {
                process.signal(SIGTERM)
                #expect(await process.waitForExit() == 0, "\(process.errorOutput)")
            }
        }
    }
}
