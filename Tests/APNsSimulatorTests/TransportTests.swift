import APNsSimulator
import Foundation
import ScorecastLogging
import Testing
import TestSupport

/// The HTTP/2-over-TLS transport: ALPN, certificates, load, start and stop.
@Suite struct TransportTests {
    @Test func onlyHTTP2IsSpoken() async throws {
        try await SimulatorFixture.with { sim in
            let output = try await ExternalTool.run("curl", ["--http1.1", "--cacert", sim.endpoints.caCertificatePath, "-sS",
                                                             "\(sim.managementURL)/1/apps/\(sim.bundleID)/all-channels"])
            #expect(output.status != 0, "an HTTP/1.1 request over TLS is not answered: \(output.stdout)")
            // The certificate names localhost and 127.0.0.1.
            let byAddress = try await ExternalTool.run("curl", ["--http2", "--cacert", sim.endpoints.caCertificatePath, "-sS", "-o", "/dev/null",
                                                                "-w", "%{http_version}", "https://127.0.0.1:\(sim.endpoints.sendPort)/3/device/x"])
            #expect(byAddress.status == 0, "\(byAddress.stderr)")
            #expect(byAddress.stdout == "2")
        }
    }

    @Test func manyMultiplexedBroadcastsAreAllAnswered() async throws {
        try await SimulatorFixture.with(configure: { $0.budgetPerHour = nil; $0.requestLogCapacity = 100 }) { sim in
            let channelID = try await sim.createChannel()
            let folder = try TemporaryFolder("apns-sim-h2load").path
            let payloadPath = folder + "/payload.json"
            try SimulatorFixture.updatePayload.write(toFile: payloadPath, atomically: true, encoding: .utf8)
            let output = try await ExternalTool.run("h2load", [
                "-n", "20000", "-c", "2", "-m", "100", "-d", payloadPath,
                "-H", "authorization: bearer \(try sim.token())", "-H", "apns-channel-id: \(channelID)",
                "-H", "apns-push-type: liveactivity", "-H", "apns-priority: 10", "-H", "apns-expiration: 0",
                "https://127.0.0.1:\(sim.endpoints.sendPort)/4/broadcasts/apps/\(sim.bundleID)",
            ])
            #expect(output.status == 0, "\(output.stderr)")
            #expect(output.stdout.contains("20000 succeeded, 0 failed, 0 errored, 0 timeout"), "\(output.stdout)")
            #expect(output.stdout.contains("status codes: 20000 2xx"), "\(output.stdout)")
            #expect(sim.simulator.statistics().answers["200"] == 20000)
            #expect(sim.simulator.budgets().first?.priorityTenSends == 20000)
            #expect(sim.simulator.receivedRequests().count == 100, "the log keeps only its capacity")
        }
    }

    @Test func oneStreamUntilAuthenticated() async throws {
        try await SimulatorFixture.with(configure: { $0.oneStreamUntilAuthenticated = true; $0.maxConcurrentStreams = 900 }) { sim in
            let list = "\(sim.managementURL)/1/apps/\(sim.bundleID)/all-channels"
            let good = try await ExternalTool.run("nghttp", ["-v", "-n", "-H", "authorization: bearer \(try sim.token())", list])
            #expect(Self.receivedStreamLimits(good.stdout) == [1, 900], "\(good.stdout)")
            // A refused token does not lift the limit.
            let bad = try await ExternalTool.run("nghttp", ["-v", "-n", "-H", "authorization: bearer x.y.z", list])
            #expect(Self.receivedStreamLimits(bad.stdout) == [1], "\(bad.stdout)")
            // curl follows the limit: sequential requests on one connection all succeed.
            let answers = try await sim.curlOnOneConnection(Array(repeating: ["--header", "authorization: bearer \(try sim.token())", list], count: 3))
            #expect(answers.map(\.status) == [200, 200, 200])
        }
    }

    /// The SETTINGS_MAX_CONCURRENT_STREAMS values in SETTINGS frames nghttp received, in order.
    static func receivedStreamLimits(_ output: String) -> [Int] {
        var received = false
        var limits: [Int] = []
        for line in output.components(separatedBy: "\n") {
            if line.contains(" recv ") { received = true } else if line.contains(" send ") { received = false }
            if received, let range = line.range(of: "SETTINGS_MAX_CONCURRENT_STREAMS(0x03):"),
               let value = Int(line[range.upperBound...].prefix { $0.isNumber }) {
                limits.append(value)
            }
        }
        return limits
    }

    @Test func givenCertificateIsServed() async throws {
        let folder = try TemporaryFolder("apns-sim-cert").path
        let made = try await ExternalTool.run("openssl", [
            "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "2",
            "-subj", "/CN=own", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1",
            "-keyout", folder + "/key.pem", "-out", folder + "/cert.pem",
        ])
        #expect(made.status == 0, "\(made.stderr)")
        try await SimulatorFixture.with(configure: {
            $0.certificatePath = folder + "/cert.pem"
            $0.privateKeyPath = folder + "/key.pem"
        }) { sim in
            #expect(sim.endpoints.caCertificatePath == folder + "/cert.pem")
            let response = try await sim.curl(["--header", "authorization: bearer \(try sim.token())", "\(sim.managementURL)/1/apps/\(sim.bundleID)/all-channels"])
            #expect(response.status == 200)
        }
    }

    @Test func generatedCertificateIsKeptAndReused() async throws {
        let state = try TemporaryFolder("apns-sim-reuse").path
        var firstPEM = ""
        try await SimulatorFixture.with(configure: { $0.stateDirectory = state }) { sim in
            firstPEM = try String(contentsOfFile: sim.endpoints.caCertificatePath, encoding: .utf8)
            let keyPath = URL(fileURLWithPath: sim.endpoints.caCertificatePath).deletingLastPathComponent().appendingPathComponent("apns-sim-key.pem").path
            let permissions = try FileManager.default.attributesOfItem(atPath: keyPath)[.posixPermissions] as? Int
            #expect(permissions == 0o600)
        }
        try await SimulatorFixture.with(configure: { $0.stateDirectory = state }) { sim in
            let secondPEM = try String(contentsOfFile: sim.endpoints.caCertificatePath, encoding: .utf8)
            #expect(secondPEM == firstPEM)
        }
    }

    @Test func busyPortIsAClearError() async throws {
        try await SimulatorFixture.with { sim in
            let key = try await TeamKeys.shared.key()
            let configuration = SimulatorConfiguration(
                sendPort: sim.endpoints.sendPort, stateDirectory: try TemporaryFolder("apns-sim-busy").path,
                teams: [key.team(bundleIDs: ["a.b"])])
            let second = try APNsSimulator(configuration: configuration, logger: Logger(label: "test", level: .critical))
            #expect { try second.start() } throws: { error in
                "\(error)".contains("cannot listen on 127.0.0.1:\(sim.endpoints.sendPort)")
            }
        }
    }

    @Test func stopClosesOpenConnections() async throws {
        let output = try await withThrowingTaskGroup(of: ExternalTool.Result?.self) { group in
            try await SimulatorFixture.with(configure: { $0.faults = SimulatorFaults(blackHole: true) }) { sim in
                let token = try sim.token()
                group.addTask {
                    try await ExternalTool.run("curl", ["--http2", "--cacert", sim.endpoints.caCertificatePath, "-sS", "--max-time", "120",
                                                         "--header", "authorization: bearer \(token)",
                                                         "\(sim.managementURL)/1/apps/\(sim.bundleID)/all-channels"],
                                               timeout: .seconds(180))  // past curl's own 120 s: curl, not the runner, gives up
                }
                // Wait until the request sits in the black hole, then stop the simulator.
                try await eventually("the request sits in the black hole", every: .milliseconds(20)) { !sim.simulator.receivedRequests().isEmpty }
            }
            return try await group.next() ?? nil
        }
        let result = try #require(output)
        // Exit 28 would be curl's own deadline: any other failure means the stop closed the
        // connection under it. (That deadline only bounds a hang: 20 s was a margin when set-up
        // alone took 17 s on a loaded machine.)
        #expect(result.status != 0 && result.status != 28, "curl sees the connection close, not its own timeout: \(result.stderr)")
    }
}
