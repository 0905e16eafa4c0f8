import APNs
import APNsSimulator
import CThreadName
import Foundation
import Lifecycle
import ScorecastLogging
import Synchronization
import TestSupport
import Testing
@testable import scorecast_bench

@Suite("Per-thread CPU from /proc")
struct ThreadCPUTests {
    @Test("sums the CPU of a process's threads by their kernel name (cut to the kernel's 15 bytes when named); nil when none has it")
    func namedThreads() async throws {
        let fullName = "probe-\(getpid() % 100_000)-with-a-long-suffix"
        let name = String(fullName.prefix(15))
        let done = Atomic<Bool>(false)
        let thread = Thread {
            _ = scorecast_name_this_thread(fullName)
            var spins = 0
            while !done.load(ordering: .relaxed) { spins &+= 1 }
            _ = spins
        }
        thread.start()
        defer { done.store(true, ordering: .relaxed) }
        // The thread is found once it has named itself and run for a scheduler tick.
        var seconds: Double?
        try await eventually("the named thread shows CPU time") {
            seconds = ProcFS.threadsCPUSeconds(pid: getpid(), named: name)
            return (seconds ?? 0) > 0
        }
        #expect((seconds ?? 0) > 0)
        #expect(ProcFS.threadsCPUSeconds(pid: getpid(), named: "no-such-thread") == nil)
    }
}

@Suite("The APNs client's thread as part 3 samples it")
struct ClientThreadCPUTests {
    @Test("its CPU, found by APNsClient.threadName, grows while the client sends real pushes to the simulator over TLS")
    func growsWithTraffic() async throws {
        let folder = try TemporaryFolder("client-thread").path
        let key = try BenchKey.generate(in: folder)
        let bundleID = CeilingBenchmark.bundleID
        let configuration = SimulatorConfiguration(
            stateDirectory: folder + "/sim-state",
            teams: [SimulatorTeam(teamID: BenchKey.teamID, keyID: BenchKey.keyID, publicKeyPEM: key.privateKey.publicKey.pem,
                                  bundleIDs: [bundleID])])
        let simulator = try APNsSimulator(configuration: configuration, logger: Logger(label: "client-thread-test", level: .warning))
        let endpoints = try simulator.start()
        let shutdown = ShutdownSignal()
        try await whileRunning("the APNs simulator", { try await simulator.run(until: shutdown) }, stop: shutdown.trigger) {
            let send = APNsEndpoint(host: "127.0.0.1", port: endpoints.sendPort, caFile: endpoints.caCertificatePath)
            let management = APNsEndpoint(host: "127.0.0.1", port: endpoints.managementPort, caFile: endpoints.caCertificatePath)
            var clientConfiguration = APNsClientConfiguration(sendEndpoint: send, managementEndpoint: management)
            clientConfiguration.proxy = .direct
            let client = try APNsClient(configuration: clientConfiguration, logger: Logger(label: "client-thread-test", level: .warning))
            let credentials = try key.credentials()
            let push = DevicePush(token: PeerBenchmark.deviceToken, topic: bundleID + ".push-type.liveactivity",
                                  pushType: .liveActivity, priority: .immediate, payload: PeerBenchmark.payload)
            let before = ProcFS.threadsCPUSeconds(pid: getpid(), named: APNsClient.threadName) ?? 0
            // CPU time moves in scheduler ticks: send until it has, in rounds of 500 pushes, at
            // most 40 rounds (about 50 µs of the thread per push: a tick is a few hundred).
            var after = before
            var succeeded = 0
            for _ in 0..<40 where after <= before {
                let outcome = await LoadRunner.run(total: 500, lanes: 50, timeLimit: .seconds(120)) { _ in
                    try await client.sendToDevice(push, credentials: credentials)
                }
                succeeded += outcome.succeeded
                after = ProcFS.threadsCPUSeconds(pid: getpid(), named: APNsClient.threadName) ?? 0
            }
            await client.shutdown()
            #expect(succeeded >= 500 && succeeded % 500 == 0, "every push was accepted: \(succeeded)")
            #expect(after > before, "the client's thread used no CPU it could be found by: \(before) → \(after)")
        }
    }
}
