import APNsSimulator
import Foundation
import Lifecycle
import ScorecastLogging
import TestSupport
import Testing
@testable import scorecast_bench

/// The libcurl floor (`Deploy/bench/curl_floor.c`), compiled with gcc as the bench does and run
/// against the APNs simulator over TLS: its pushes must be the very pushes ours and aioapns send.
@Suite("the libcurl floor")
struct CurlFloorTests {
    static let scriptsFolder = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Deploy/bench").path

    @Test("with -u apns-id every push carries a fresh lowercase UUID, which the simulator accepts")
    func freshRequestIDs() async throws {
        let folder = try TemporaryFolder("curl-floor").path
        let key = try BenchKey.generate(in: folder)
        let bundleID = CeilingBenchmark.bundleID
        let configuration = SimulatorConfiguration(
            stateDirectory: folder + "/sim-state",
            teams: [SimulatorTeam(teamID: BenchKey.teamID, keyID: BenchKey.keyID, publicKeyPEM: key.privateKey.publicKey.pem,
                                  bundleIDs: [bundleID])])
        let simulator = try APNsSimulator(configuration: configuration, logger: Logger(label: "curl-floor-test", level: .warning))
        let endpoints = try simulator.start()
        let shutdown = ShutdownSignal()
        try await whileRunning("the APNs simulator", { try await simulator.run(until: shutdown) }, stop: shutdown.trigger) {
            let executable = try await CurlFloor.compile(scriptsFolder: Self.scriptsFolder, folder: folder)
            let bodyFile = folder + "/body.json"
            #expect(FileManager.default.createFile(atPath: bodyFile, contents: Data(PeerBenchmark.payload)))
            let url = "https://127.0.0.1:\(endpoints.sendPort)/3/device/\(PeerBenchmark.deviceToken)"
            let headers = [("authorization", "bearer " + (try key.providerToken())), ("apns-push-type", "liveactivity"),
                           ("apns-topic", bundleID + ".push-type.liveactivity"), ("content-type", "application/json")]

            let outcome = try await CurlFloor.run(
                executable: executable, url: url, headers: headers, uniqueHeader: "apns-id", bodyFile: bodyFile,
                caFile: endpoints.caCertificatePath, requests: 60, connections: 1, streams: 8, folder: folder,
                label: "floor", timeLimit: .seconds(60))
            // An id that is not a lowercase canonical UUID is answered 400 BadMessageId (apns.md §2).
            #expect(outcome.succeeded == 60 && outcome.failed == 0)
            let pushes = simulator.receivedRequests().filter { $0.path.hasPrefix("/3/device/") }
            #expect(pushes.count == 60)
            let ids = pushes.compactMap { $0.header("apns-id") }
            #expect(ids.count == 60, "a push without apns-id")
            #expect(Set(ids).count == 60, "an apns-id sent twice")
            #expect(pushes.allSatisfy { $0.status == 200 })
            #expect(pushes.allSatisfy { $0.responseHeader("apns-id") == $0.header("apns-id") }, "the simulator replaced an id")

            // Without -u: the fixed list only, and the simulator assigns the ids.
            let plain = try await CurlFloor.run(
                executable: executable, url: url, headers: headers, bodyFile: bodyFile, caFile: endpoints.caCertificatePath,
                requests: 10, connections: 1, streams: 4, folder: folder, label: "floor-plain", timeLimit: .seconds(60))
            #expect(plain.succeeded == 10 && plain.failed == 0)
            let later = simulator.receivedRequests().filter { $0.path.hasPrefix("/3/device/") }.dropFirst(60)
            #expect(later.count == 10 && later.allSatisfy { $0.header("apns-id") == nil })
        }
    }
}
