import APNsSimulator
import Foundation
import Lifecycle
import ScorecastLogging
import Testing
import TestSupport

/// The `holdAnswers` fault: a broadcast's answer waits, without a timer, until the test
/// releases it, while the simulator goes on answering everything else.
@Suite struct HoldAnswersTests {
    /// curl's own deadline on a held broadcast: it only ends a test whose release never came
    /// (an `async let` left behind is awaited before the simulator could release it).
    static let giveUp = ["--max-time", "300"]

    @Test func aHeldBroadcastIsAnsweredOnceReleased() async throws {
        try await SimulatorFixture.with { sim in
            let channelID = try await sim.createChannel()
            let set = try await sim.admin("POST", "/faults", body: #"{"holdAnswers": true}"#)
            #expect(set.json?["holdAnswers"] as? Bool == true)
            async let held = sim.broadcast(channelID: channelID, extra: Self.giveUp)
            try await eventually("the broadcast is held") { try await sim.admin("GET", "/held-answers").json?["held"] as? Int == 1 }
            // While it is held, a device push on the same port (another connection, the same
            // loop thread) is answered, and the broadcast still is not.
            let push = try await sim.curl([
                "--header", "authorization: bearer \(try sim.token())",
                "--header", "apns-topic: \(sim.bundleID).push-type.liveactivity", "--header", "apns-push-type: liveactivity",
                "--header", "apns-priority: 10", "--data-binary", DevicePushTests.startPayload,
                "\(sim.sendURL)/3/device/\(DevicePushTests.deviceToken)",
            ])
            #expect(push.status == 200)
            #expect(sim.simulator.heldAnswerCount == 1)
            let broadcastAnswers = sim.simulator.receivedRequests().filter { $0.path.hasPrefix("/4/broadcasts/") }
            #expect(broadcastAnswers.count == 1, "a held broadcast is logged on arrival")

            let release = try await sim.admin("POST", "/held-answers/release")
            #expect(release.json?["released"] as? Int == 1)
            let answer = try await held
            #expect(answer.status == 200)
            #expect(answer.headers["apns-unique-id"] != nil)
            #expect(sim.simulator.heldAnswerCount == 0)
            #expect(sim.simulator.faults.holdAnswers, "a release leaves the hold on for later broadcasts")
        }
    }

    @Test func clearingTheFaultReleasesHeldBroadcasts() async throws {
        try await SimulatorFixture.with { sim in
            let channelID = try await sim.createChannel()
            try sim.simulator.setFaults(SimulatorFaults(holdAnswers: true))
            async let first = sim.broadcast(channelID: channelID, extra: Self.giveUp)
            async let second = sim.broadcast(channelID: channelID, extra: Self.giveUp)
            try await eventually("both broadcasts are held") { sim.simulator.heldAnswerCount == 2 }
            _ = try await sim.admin("DELETE", "/faults")
            #expect(try await first.status == 200)
            #expect(try await second.status == 200)
            #expect(sim.simulator.heldAnswerCount == 0)
            #expect(try await sim.broadcast(channelID: channelID).status == 200, "no hold once cleared")
        }
    }

    @Test func shutdownAnswersHeldBroadcasts() async throws {
        let key = try await TeamKeys.shared.key()
        let bundleID = "com.example.scores"
        var configuration = SimulatorConfiguration(
            stateDirectory: try TemporaryFolder("apns-sim-state").path, teams: [key.team(bundleIDs: [bundleID])])
        configuration.faults = SimulatorFaults(holdAnswers: true)
        let simulator = try APNsSimulator(configuration: configuration, logger: Logger(label: "apns-sim-test", level: .warning))
        let sim = SimulatorFixture(simulator: simulator, endpoints: try simulator.start(), key: key, bundleID: bundleID)
        let shutdown = ShutdownSignal()
        let running = Task { try await simulator.run(until: shutdown) }
        defer { shutdown.trigger() }
        let channelID = try await sim.createChannel()
        async let held = sim.broadcast(channelID: channelID, extra: Self.giveUp)
        try await eventually("the broadcast is held") { simulator.heldAnswerCount == 1 }
        shutdown.trigger()
        #expect(try await held.status == 200, "shutdown answers what it held")
        try await withDeadline("the simulator stops") { try await running.value }
    }
}
