import EndToEndSupport
import APNsSimulator
import Foundation
import Testing
import TestSupport

/// `/metrics` of the built binary after real sends through the simulator: every counter and
/// histogram moves, and each equals what `/v1/stats` and the simulator's request log say.
@Suite("End to end: metrics that move", .serialized)
struct MetricsEndToEndTests {
    /// Parses Prometheus text with the reference parser (`prometheus_client`), not our own.
    static let parser = """
        import json, sys
        from prometheus_client.parser import text_string_to_metric_families
        out = []
        for family in text_string_to_metric_families(sys.stdin.read()):
            for sample in family.samples:
                out.append({"family": family.name, "type": family.type, "name": sample.name, "labels": sample.labels, "value": sample.value})
        print(json.dumps(out))
        """

    struct Sample: Decodable {
        var family: String
        var type: String
        var name: String
        var labels: [String: String]
        var value: Double
    }

    /// The samples of a `/metrics` answer, as `prometheus_client` reads them.
    static func scrape(_ url: String) async throws -> [Sample] {
        let text = try await TestClient.live(url).get("/metrics")
        #expect(text.status == 200)
        let result = try await ExternalTool.run("python3", ["-c", parser], stdin: Data(text.body), timeout: .seconds(30))
        guard result.status == 0 else { throw TestSupportError("prometheus_client refused /metrics: \(result.stderr)") }
        return try JSONDecoder().decode([Sample].self, from: Data(result.stdout.utf8))
    }

    /// Every `scorecast_*` metric named in an expression of `Deploy/grafana/scorecast.json` or
    /// `Deploy/prometheus/alerts.yml`; both files are parsed (YAML by PyYAML), so a syntax error fails.
    static func metricsNamedInDeployFiles() async throws -> Set<String> {
        let script = """
            import json, re, sys, yaml
            root = sys.argv[1]
            exprs = []
            rules = yaml.safe_load(open(root + "/Deploy/prometheus/alerts.yml"))
            for group in rules["groups"]:
                for rule in group["rules"]:
                    assert rule["alert"] and rule["expr"] and rule["annotations"]["summary"], rule
                    exprs.append(rule["expr"])
            dashboard = json.load(open(root + "/Deploy/grafana/scorecast.json"))
            for panel in dashboard["panels"]:
                exprs += [target["expr"] for target in panel["targets"]]
            print(json.dumps(sorted({m for e in exprs for m in re.findall(r"scorecast_[a-z0-9_]+", e)})))
            """
        let result = try await ExternalTool.run("python3", ["-c", script, ExternalTool.packageRoot.path], timeout: .seconds(30))
        guard result.status == 0 else { throw TestSupportError("the Deploy files do not parse: \(result.stderr)") }
        return Set(try JSONDecoder().decode([String].self, from: Data(result.stdout.utf8)))
    }

    static func sum(_ samples: [Sample], _ name: String, where labels: [String: String] = [:]) -> Double {
        samples.filter { sample in sample.name == name && labels.allSatisfy { sample.labels[$0.key] == $0.value } }
            .reduce(0) { $0 + $1.value }
    }

    static func event(_ id: String, seq: Int, kind: String, home: Int = 0, clock: String, game: String = "ars-che") -> String {
        #"{"id": "\#(id)", "game": "\#(game)", "seq": \#(seq), "occurredAt": "2025-11-29T20:\#(String(format: "%02d", seq)):00Z", "kind": "\#(kind)", "team": "home", "scoreboard": {"home": \#(home), "away": 0, "period": "1H", "clock": "\#(clock)"}}"#
    }

    static func post(_ url: String, key: String, _ body: String) async throws -> Int {
        try await TestClient.live(url).execute(
            .post, "/v1/events", headers: ["Authorization": "Bearer \(key)", "Content-Type": "application/json"],
            body: Array(body.utf8)).status
    }

    @Test("after goals, a 500, a 429, downgrades and coalesced updates, /metrics equals /v1/stats and the simulator's log")
    func metricsMatchStatsAndTheSimulator() async throws {
        try await RegistryE2E.with(["SCORECAST_UNKNOWN_GAMES": "refuse"]) { e2e in
            // Our budget: 3 priority-10 sends an hour; the simulator's: 1, so the second goal
            // is answered 429 (throttled, retried, budget shrunk) and later goals are downgraded.
            try await e2e.addApp("com.example.live", "--budget", "3")
            try await e2e.addGame("ars-che")
            let created = try #require(try await e2e.json("channels", "create", "--game", "ars-che", "--app", "com.example.live") as? [String: Any])
            let channelID = try #require(created["channelId"] as? String)
            let keys = try await e2e.run("keys", "create", "--name", "opta")
            let key = try #require(keys.stdout.split(whereSeparator: { $0 == " " || $0 == "\n" }).first { $0.hasPrefix("sck_") }.map(String.init))
            try e2e.simulator.setBudget(perHour: 1, noMessageStoredPerHour: 1)
            try e2e.simulator.setFaults(SimulatorFaults(failNext: 1, failStatus: 500))

            var environment = e2e.environment
            environment.merge(DeliveryEndToEndTests.settings) { _, new in new }
            environment["SCORECAST_ROUTINE_INTERVAL_MS"] = "5000"
            environment["SCORECAST_APNS_CONNECTIONS"] = "2"
            let server = try ScorecastProcess(["serve", "--roles", "api,worker"], environment: environment)
            let url = try await DeliveryEndToEndTests.apiURL(server)

            // 1: a goal, answered 500 then retried and accepted.
            #expect(try await Self.post(url, key: key, Self.event("g1", seq: 1, kind: "score", home: 1, clock: "10'")) == 202)
            try await eventually("the first goal is accepted") {
                DeliveryEndToEndTests.broadcasts(e2e, to: channelID).contains { $0.status == 200 }
            }
            // 2: three clock updates: routine, so held for the routine interval after the goal;
            // the second and third replace the pending one (coalesced), and so does the next goal.
            for seq in 2...4 {
                #expect(try await Self.post(url, key: key, Self.event("c\(seq)", seq: seq, kind: "clock", home: 1, clock: "\(seq * 10)'")) == 202)
            }
            // 3: more goals: 429 from the simulator, then downgrades.
            for seq in 5...7 {
                #expect(try await Self.post(url, key: key, Self.event("g\(seq)", seq: seq, kind: "score", home: seq - 3, clock: "\(seq * 10)'")) == 202)
            }
            // A duplicate, a stale event and a refused one (unknown game).
            #expect(try await Self.post(url, key: key, Self.event("g7", seq: 7, kind: "score", home: 4, clock: "70'")) == 202)
            #expect(try await Self.post(url, key: key, Self.event("late", seq: 3, kind: "clock", home: 1, clock: "31'")) == 202)
            #expect(try await Self.post(url, key: key, Self.event("x1", seq: 1, kind: "clock", clock: "1'", game: "nope")) == 422)

            try await eventually("every update is sent") {
                let pending = try await e2e.pool.query("SELECT 1 FROM outbox").count
                let written = try await e2e.pool.query("SELECT 1 FROM deliveries").count
                let answered = DeliveryEndToEndTests.broadcasts(e2e, to: channelID).filter { $0.status != nil }.count
                return pending == 0 && written == answered
            }
            let log = DeliveryEndToEndTests.broadcasts(e2e, to: channelID).filter { $0.status != nil }
            let stats = try jsonObject(try await TestClient.live(url).get("/v1/stats?window=1h").body)
            let totals = try #require(stats["totals"] as? [String: Any])
            let events = try #require(totals["events"] as? [String: Int])
            let sends = try #require(totals["sends"] as? [String: Int])
            // Counters are incremented just after the outcomes are written: wait for the last one.
            var samples: [Sample] = []
            try await eventually("/metrics has counted every send") {
                samples = try await Self.scrape(url)
                return Int(Self.sum(samples, "scorecast_broadcasts_sent_total")) == sends["total"]
            }
            let app = ["app": "com.example.live"]
            func metric(_ name: String, _ labels: [String: String] = [:]) -> Int { Int(Self.sum(samples, name, where: labels)) }

            // Ingest.
            for outcome in ["accepted", "duplicate", "stale", "rejected"] {
                #expect(metric("scorecast_events_ingested_total", ["outcome": outcome, "feed": "opta"]) == events[outcome], "\(outcome)")
            }
            #expect(events["accepted"] == 7 && events["duplicate"] == 1 && events["stale"] == 1 && events["rejected"] == 1, "\(events)")
            // The refused one, by reason: in /metrics and in /v1/stats.
            #expect(metric("scorecast_events_ingested_total", ["outcome": "rejected", "reason": "unknown_game"]) == 1)
            let refusals = try #require(stats["refusals"] as? [[String: Any]])
            #expect(refusals.count == 1 && refusals.first?["reason"] as? String == "unknown_game" && refusals.first?["count"] as? Int == 1, "\(refusals)")
            // Sends by outcome and priority: /v1/stats and the simulator's log.
            #expect(metric("scorecast_broadcasts_sent_total", app.merging(["outcome": "accepted"]) { $1 }) == sends["accepted"])
            #expect(metric("scorecast_broadcasts_sent_total", ["outcome": "retried"]) == sends["retried"])
            #expect(metric("scorecast_broadcasts_sent_total", ["outcome": "failed"]) == sends["failed"])
            #expect(metric("scorecast_broadcasts_sent_total", ["priority": "10"]) == sends["priority10"])
            #expect(metric("scorecast_broadcasts_sent_total", ["priority": "5"]) == sends["priority5"])
            #expect(metric("scorecast_broadcasts_sent_total") == log.count)
            #expect(metric("scorecast_broadcasts_sent_total", ["outcome": "accepted"]) == log.count { $0.status == 200 })
            for priority in ["10", "5"] {
                #expect(metric("scorecast_broadcasts_sent_total", ["priority": priority]) == log.count { $0.header("apns-priority") == priority })
            }
            // Failures by reason, throttled, retried, downgraded, coalesced.
            let failures = try #require(totals["failures"] as? [[String: Any]])
            for failure in failures {
                let reason = try #require(failure["reason"] as? String)
                #expect(metric("scorecast_broadcast_failures_total", ["reason": reason]) == failure["count"] as? Int, "\(reason)")
            }
            #expect(metric("scorecast_broadcast_failures_total", ["reason": "InternalServerError"]) == log.count { $0.status == 500 })
            #expect(metric("scorecast_broadcast_failures_total", ["reason": "TooManyRequests"]) == log.count { $0.status == 429 })
            #expect(metric("scorecast_broadcasts_throttled_total", app) == totals["throttled"] as? Int)
            #expect(metric("scorecast_broadcasts_throttled_total") == log.count { $0.status == 429 })
            #expect(metric("scorecast_broadcasts_retried_total", app) == totals["retried"] as? Int)
            #expect(metric("scorecast_broadcasts_downgraded_total", app) == totals["downgraded"] as? Int)
            #expect(metric("scorecast_updates_coalesced_total", app) == totals["coalesced"] as? Int)
            // Latency histograms: one observation per answered attempt.
            #expect(metric("scorecast_apns_response_seconds_count", app) == log.count)
            #expect(metric("scorecast_ingest_to_send_seconds_count", app) == log.count)

            // A metric that never moves fails here: every counter and histogram has counted something.
            let families = Set(samples.filter { $0.type == "counter" || $0.type == "histogram" }.map(\.family))
            for family in ["scorecast_events_ingested", "scorecast_broadcasts_sent", "scorecast_broadcast_failures",
                           "scorecast_updates_coalesced", "scorecast_broadcasts_downgraded", "scorecast_broadcasts_retried",
                           "scorecast_broadcasts_throttled", "scorecast_ingest_to_send_seconds", "scorecast_apns_response_seconds"] {
                #expect(families.contains(family), "\(family) is missing")
            }
            // The one counter that must stay at zero: label sets dropped for exceeding the series cap.
            #expect(Self.sum(samples, "scorecast_metrics_series_overflow_total") == 0)
            for family in families where family != "scorecast_metrics_series_overflow" {
                let moved = samples.contains { $0.family == family && ($0.name.hasSuffix("_total") || $0.name.hasSuffix("_count")) && $0.value > 0 }
                #expect(moved, "\(family) never moved")
            }
            // The database gauges are the poller leader's to export (none runs here): left out,
            // so that summing them across processes stays right.
            for name in SplitRolesMetricsEndToEndTests.databaseGauges {
                #expect(!samples.contains { $0.family == name }, "\(name) exported by a process without the poller")
            }
            // The APNs connections the worker's client holds open (kept for hours): at least the
            // one that carried the sends, at most SCORECAST_APNS_CONNECTIONS, never more than
            // the simulator served broadcasts on.
            let sendConnections = metric("scorecast_apns_connections", ["pool": "send"])
            #expect((1...2).contains(sendConnections), "\(sendConnections)")
            #expect(sendConnections <= Set(log.map(\.connection)).count)
            #expect(samples.contains { $0.name == "scorecast_apns_connections" && $0.labels["pool"] == "management" })

            // The shipped Grafana dashboard and alert rules name only metrics this scrape has,
            // but for the database gauges, which the poller's leader exports
            // (SplitRolesMetricsEndToEndTests checks those).
            let named = try await Self.metricsNamedInDeployFiles().subtracting(SplitRolesMetricsEndToEndTests.databaseGauges)
            #expect(named.count > 10, "\(named)")
            let exported = Set(samples.map(\.name) + samples.map(\.family))
            for name in named { #expect(exported.contains(name), "\(name) is used by Deploy/ but not exported") }
            // The channel's budget counts accepted priority-10 sends only (a 429 spends the
            // window for the workers but is no use of it).
            let registryID = try #require(created["id"] as? Int)
            let channelStats = try jsonObject(try await TestClient.live(url).get("/v1/channels/\(registryID)/stats").body)
            let budget = try #require(channelStats["budget"] as? [String: Any])
            #expect(budget["priority10Used"] as? Int == log.count { $0.status == 200 && $0.header("apns-priority") == "10" }, "\(budget)")
            #expect((budget["priority10Used"] as? Int ?? 0) <= (budget["priority10Limit"] as? Int ?? 0), "\(budget)")

            // APNs trouble is in the log at the default level, once per cause.
            #expect(server.errorOutput.contains("APNs trouble: InternalServerError"), "\(server.errorOutput)")
            #expect(server.errorOutput.contains("APNs trouble: TooManyRequests"), "\(server.errorOutput)")
            server.signal(SIGTERM)
            #expect(await server.waitForExit() == 0, "\(server.errorOutput)")
        }
    }
}
