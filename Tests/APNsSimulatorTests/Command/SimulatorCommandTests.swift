import APNsSimulator
import Foundation
import Testing
import TestSupport

/// `scorecast apns-sim` flags and config file.
@Suite struct SimulatorCommandTests {
    @Test func defaults() throws {
        let configuration = try SimulatorCommand.parse(arguments: [])
        #expect(configuration.host == "127.0.0.1")
        #expect(configuration.sendPort == 0)
        #expect(configuration.channelLimit == 10_000)
        #expect(configuration.budgetPerHour == SimulatorConfiguration.defaultBudgetPerHour)
        #expect(configuration.maxConcurrentStreams == 1000)
        #expect(configuration.faults == .none)
    }

    @Test func flags() async throws {
        let key = try await TeamKeys.shared.key()
        let publicPath = key.privateKeyPath + ".public.pem"
        try key.publicKeyPEM.write(toFile: publicPath, atomically: true, encoding: .utf8)
        let configuration = try SimulatorCommand.parse(arguments: [
            "--host", "127.0.0.1", "--send-port", "8443", "--management-port=2195", "--admin-port", "9100",
            "--state-dir", "/tmp/x", "--team", "\(key.teamID):\(key.keyID):\(publicPath):com.a.b, com.a.c",
            "--channel-limit", "50", "--budget", "unlimited", "--no-storage-budget", "30", "--retry-after", "auto",
            "--allow-priority-1", "--max-streams", "500", "--request-log", "10",
            "--fail-next", "3", "--fail-status", "500", "--fail-percent", "12.5", "--goaway-after", "100",
            "--reset-next", "2", "--reset-percent", "1", "--latency-ms", "20", "--black-hole",
        ])
        #expect(configuration.sendPort == 8443)
        #expect(configuration.managementPort == 2195)
        #expect(configuration.adminPort == 9100)
        #expect(configuration.stateDirectory == "/tmp/x")
        #expect(configuration.teams == [key.team(bundleIDs: ["com.a.b", "com.a.c"])])
        #expect(configuration.channelLimit == 50)
        #expect(configuration.budgetPerHour == nil)
        #expect(configuration.noMessageStoredBudgetPerHour == 30)
        #expect(configuration.retryAfter == .untilBudgetFrees)
        #expect(configuration.allowsPriorityOneBroadcasts)
        #expect(configuration.maxConcurrentStreams == 500)
        #expect(configuration.requestLogCapacity == 10)
        #expect(configuration.faults == SimulatorFaults(
            failNext: 3, failPercent: 12.5, failStatus: 500, goAwayAfterStreams: 100, resetNext: 2, resetPercent: 1,
            latencyMilliseconds: 20, blackHole: true))
    }

    @Test(arguments: [
        (["--send-port"], "--send-port needs a value"),
        (["--send-port", "x"], "--send-port takes a whole number"),
        (["--send-port", "70000"], "send port 70000"),
        (["--frobnicate", "1"], "unknown option --frobnicate"),
        (["stray"], "unexpected argument 'stray'"),
        (["--cert", "/tmp/c.pem"], "--cert and --key go together"),
        (["--team", "T:K:only-three"], "--team takes"),
        (["--team", "T:K:/nonexistent/key.pem:a.b"], "/nonexistent/key.pem"),
        (["--retry-after", "later"], "--retry-after takes"),
        (["--fail-status", "404"], "failStatus must be 500 or 503"),
    ])
    func badArgumentsAreNamed(arguments: [String], message: String) {
        do {
            _ = try SimulatorCommand.parse(arguments: arguments)
            Issue.record("\(arguments) was accepted")
        } catch {
            #expect(error.description.contains(message), "\(error.description)")
        }
    }

    @Test func configFileWithFlagsOnTop() async throws {
        let key = try await TeamKeys.shared.key()
        let folder = try TemporaryFolder("apns-sim-config").path
        try key.publicKeyPEM.write(toFile: folder + "/team.pem", atomically: true, encoding: .utf8)
        let file = folder + "/sim.json"
        try """
        {"sendPort": 1234, "channelLimit": 7, "budgetPerHour": null, "retryAfter": 15,
         "faults": {"failNext": 1, "goAwayAfterStreams": 9},
         "teams": [{"teamID": "\(key.teamID)", "keyID": "\(key.keyID)", "publicKeyPath": "team.pem", "bundleIDs": ["com.x.y"]}]}
        """.write(toFile: file, atomically: true, encoding: .utf8)
        let configuration = try SimulatorCommand.parse(arguments: ["--channel-limit", "8", "--config", file])
        #expect(configuration.sendPort == 1234)
        #expect(configuration.channelLimit == 8, "command-line flags win over the file")
        #expect(configuration.budgetPerHour == nil)
        #expect(configuration.retryAfter == .seconds(15))
        #expect(configuration.faults.failNext == 1)
        #expect(configuration.faults.goAwayAfterStreams == 9)
        #expect(configuration.teams == [key.team(bundleIDs: ["com.x.y"])])

        try #"{"sendport": 1}"#.write(toFile: file, atomically: true, encoding: .utf8)
        #expect { try SimulatorCommand.parse(arguments: ["--config", file]) } throws: { error in
            "\(error)".contains("unknown key sendport")
        }
    }

    @Test func helpMentionsEveryFlag() {
        for flag in ["--host", "--send-port", "--management-port", "--admin-port", "--state-dir", "--cert", "--key", "--team",
                     "--config", "--channel-limit", "--budget", "--max-streams", "--fail-next", "--goaway-after", "--black-hole"] {
            #expect(SimulatorCommand.helpText.contains(flag))
        }
        #expect(SimulatorCommand.wantsHelp(["--help"]))
    }

    @Test func endpointsLine() {
        let line = SimulatorEndpoints(sendPort: 1, managementPort: 2, adminPort: 3, caCertificatePath: "/tmp/a \"b\".pem").jsonLine
        #expect(line == #"{"sendPort":1,"managementPort":2,"adminPort":3,"caCertificate":"/tmp/a \"b\".pem"}"#)
        #expect(!line.contains("\n"))
    }
}
