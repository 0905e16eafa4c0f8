import APNsSimulator
import Foundation
import Testing
import TestSupport

/// Injected faults, set through the admin API and observed with `curl` and `nghttp`.
@Suite struct FaultTests {
    @Test func nextRequestsFailWith503() async throws {
        try await SimulatorFixture.with { sim in
            let channelID = try await sim.createChannel()
            let set = try await sim.admin("POST", "/faults", body: #"{"failNext": 2, "failStatus": 503}"#)
            #expect(set.status == 200)
            #expect(set.json?["failNext"] as? Int == 2)
            let first = try await sim.broadcast(channelID: channelID)
            #expect(first.status == 503)
            #expect(first.reason == "ServiceUnavailable")
            #expect(first.headers["apns-request-id"] != nil)
            #expect(try await sim.broadcast(channelID: channelID).status == 503)
            #expect(try await sim.broadcast(channelID: channelID).status == 200)
            #expect(sim.simulator.faults.failNext == 0)
        }
    }

    @Test func percentageFailsWith500() async throws {
        try await SimulatorFixture.with(configure: { $0.faults = SimulatorFaults(failPercent: 100, failStatus: 500) }) { sim in
            let response = try await sim.curl(["--header", "authorization: bearer \(try sim.token())", "\(sim.managementURL)/1/apps/\(sim.bundleID)/all-channels"])
            #expect(response.status == 500)
            #expect(response.reason == "InternalServerError")
            _ = try await sim.admin("DELETE", "/faults")
            let healthy = try await sim.curl(["--header", "authorization: bearer \(try sim.token())", "\(sim.managementURL)/1/apps/\(sim.bundleID)/all-channels"])
            #expect(healthy.status == 200)
        }
    }

    @Test func goAwayAfterNStreamsMovesTheClientToANewConnection() async throws {
        try await SimulatorFixture.with { sim in
            let token = try sim.token()
            let list = "\(sim.managementURL)/1/apps/\(sim.bundleID)/all-channels"
            _ = try await sim.admin("POST", "/faults", body: #"{"goAwayAfterStreams": 2}"#)
            let answers = try await sim.curlOnOneConnection(Array(repeating: ["--header", "authorization: bearer \(token)", list], count: 3))
            #expect(answers.map(\.status) == [200, 200, 200])
            let connections = sim.simulator.receivedRequests().map(\.connection)
            #expect(connections.count == 3)
            #expect(connections[0] == connections[1])
            #expect(connections[2] != connections[1], "after GOAWAY the third request needs a new connection")
        }
    }

    @Test func goAwayLeavesLaterStreamsUnprocessed() async throws {
        try await SimulatorFixture.with { sim in
            _ = try await sim.admin("POST", "/faults", body: #"{"goAwayAfterStreams": 2}"#)
            let list = "\(sim.managementURL)/1/apps/\(sim.bundleID)/all-channels"
            // nghttp sends all three requests at once on one connection (distinct URIs: it
            // fetches each URI once; the query is ignored by APNs' routing).
            let output = try await ExternalTool.run("nghttp", [
                "-v", "-n", "-H", "authorization: bearer \(try sim.token())", list + "?n=1", list + "?n=2", list + "?n=3",
            ])
            let sent = output.stdout.components(separatedBy: "\n").filter { $0.contains("send HEADERS frame") }
            #expect(sent.count == 3)
            #expect(output.stdout.contains("recv GOAWAY frame"))
            #expect(output.stdout.contains(#"{"reason":"Shutdown"}"#))
            // The first two streams were processed and answered; the third never was.
            let processed = sim.simulator.receivedRequests().map(\.stream)
            #expect(processed.count == 2)
            if let last = processed.last {
                #expect(output.stdout.contains("last_stream_id=\(last)"))
                #expect(output.stdout.contains("recv HEADERS frame <length=") && output.stdout.contains("stream_id=\(last)>"))
            }
        }
    }

    @Test func resetStreams() async throws {
        try await SimulatorFixture.with { sim in
            _ = try await sim.admin("POST", "/faults", body: #"{"resetNext": 1}"#)
            let list = "\(sim.managementURL)/1/apps/\(sim.bundleID)/all-channels"
            let reset = try await ExternalTool.run("curl", ["--http2", "--cacert", sim.endpoints.caCertificatePath, "-sS",
                                                            "--header", "authorization: bearer \(try sim.token())", list])
            #expect(reset.status != 0)
            #expect(reset.stderr.contains("INTERNAL_ERROR"))
            #expect(try await sim.curl(["--header", "authorization: bearer \(try sim.token())", list]).status == 200)
            #expect(sim.simulator.receivedRequests().map(\.outcome) == ["reset", "answered"])
        }
    }

    @Test func addedLatency() async throws {
        try await SimulatorFixture.with { sim in
            _ = try await sim.admin("POST", "/faults", body: #"{"latencyMilliseconds": 300}"#)
            let clock = ContinuousClock()
            let start = clock.now
            let response = try await sim.curl(["--header", "authorization: bearer \(try sim.token())", "\(sim.managementURL)/1/apps/\(sim.bundleID)/all-channels"])
            #expect(response.status == 200)
            #expect(clock.now - start >= .milliseconds(300))
            #expect(sim.simulator.receivedRequests().last?.delayMilliseconds == 300)
        }
    }

    @Test func blackHoleNeverAnswers() async throws {
        try await SimulatorFixture.with { sim in
            _ = try await sim.admin("POST", "/faults", body: #"{"blackHole": true}"#)
            let token = try sim.token()
            // curl's deadline is long enough for a loaded machine's TLS handshake; the request is
            // checked once the simulator has logged it, and curl still ends on its own deadline.
            async let curl = ExternalTool.run("curl", ["--http2", "--cacert", sim.endpoints.caCertificatePath, "-sS", "--max-time", "10",
                                                       "--header", "authorization: bearer \(token)",
                                                       "\(sim.managementURL)/1/apps/\(sim.bundleID)/all-channels"],
                                              timeout: .seconds(60))
            try await eventually("the request sits in the black hole", every: .milliseconds(20)) {
                sim.simulator.receivedRequests().last?.outcome == "ignored"
            }
            let output = try await curl
            #expect(output.status == 28, "curl gives up on its own deadline: \(output.stderr)")
            #expect(sim.simulator.receivedRequests().last?.outcome == "ignored")
            _ = try await sim.admin("POST", "/faults", body: #"{"blackHole": false}"#)
            #expect(try await sim.curl(["--header", "authorization: bearer \(try sim.token())", "\(sim.managementURL)/1/apps/\(sim.bundleID)/all-channels"]).status == 200)
        }
    }

    @Test func advertisedStreamLimit() async throws {
        try await SimulatorFixture.with(configure: { $0.maxConcurrentStreams = 1500 }) { sim in
            let list = "\(sim.managementURL)/1/apps/\(sim.bundleID)/all-channels"
            let before = try await ExternalTool.run("nghttp", ["-v", "-n", "-H", "authorization: bearer \(try sim.token())", list])
            #expect(before.stdout.contains("SETTINGS_MAX_CONCURRENT_STREAMS(0x03):1500"))
            _ = try await sim.admin("POST", "/faults", body: #"{"maxConcurrentStreams": 7}"#)
            let after = try await ExternalTool.run("nghttp", ["-v", "-n", "-H", "authorization: bearer \(try sim.token())", list])
            #expect(after.stdout.contains("SETTINGS_MAX_CONCURRENT_STREAMS(0x03):7"))
            let settings = try await sim.admin("GET", "/settings")
            #expect(settings.json?["maxConcurrentStreams"] as? Int == 7)
        }
    }
}
