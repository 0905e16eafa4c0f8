import ChildProcesses
import APNs
import Foundation
import ScorecastLogging
import JSON

/// Part 2: the same device pushes (push-to-start, identical body bytes) from our client, from
/// aioapns and from the libcurl floor (`CurlFloor`), the same number, the same concurrency, one
/// connection each, to the same simulator process, round after round. The floor is the most any
/// client on libcurl reaches here, so floor ÷ aioapns bounds what ours can reach against aioapns.
struct PeerBenchmark {
    /// Pushes per measured run.
    var pushes: Int
    /// Pushes before each measured run (connection set-up, JIT-free warm caches).
    var warmUp: Int
    /// Pushes in flight.
    var concurrency: Int
    /// Rounds (the median of each side is reported).
    var rounds: Int
    /// The run folder.
    var folder: String
    /// The folder holding `aioapns_peer.py`.
    var scriptsFolder: String
    /// The benchmark's logger.
    var logger: Logger

    /// The ratio ours ÷ aioapns the client is held to.
    static let target = 5.0
    /// The Python interpreter that has Debian's python3-aioapns.
    static let python = "/usr/bin/python3"
    /// A well-formed push-to-start token.
    static let deviceToken = String(repeating: "5c0ecafe", count: 8)

    /// A push-to-start body as Python's `json.dumps` writes it (", " and ": "), so that aioapns,
    /// which serialises the message itself, sends the very same bytes.
    static let payload = Array(#"{"aps": {"timestamp": 1764453600, "event": "start", "content-state": {"homeScore": 0, "awayScore": 0, "period": "1H", "clock": "0'"}, "attributes-type": "GameAttributes", "attributes": {"gameID": "bench-game-1", "homeTeam": "Arsenal", "awayTeam": "Chelsea"}, "alert": {"title": "Kick-off", "body": "Arsenal v Chelsea has started"}, "input-push-channel": "YmVuY2gtY2hhbm5lbC0x"}}"#.utf8)

    /// Runs every round and returns the report.
    func run(key: BenchKey) async throws -> PeerReport {
        let simulator = try await SimulatorProcess.start(folder: folder, key: key, bundleIDs: [CeilingBenchmark.bundleID],
                                                         label: "sim-peer")
        do {
            let report = try await measure(simulator: simulator, key: key)
            await simulator.stop()
            return report
        } catch {
            await simulator.stop()
            throw error
        }
    }

    private func measure(simulator: SimulatorProcess, key: BenchKey) async throws -> PeerReport {
        let payloadFile = folder + "/device-push-body.json"
        guard FileManager.default.createFile(atPath: payloadFile, contents: Data(Self.payload)) else {
            throw BenchError("cannot write \(payloadFile)")
        }
        let script = scriptsFolder + "/aioapns_peer.py"
        let arguments = [script, "--port", String(simulator.sendPort), "--ca", simulator.caCertificatePath,
                         "--key", key.privateKeyPath, "--key-id", BenchKey.keyID, "--team-id", BenchKey.teamID,
                         "--bundle", CeilingBenchmark.bundleID, "--token", Self.deviceToken, "--payload", payloadFile,
                         "--count", String(pushes), "--warmup", String(warmUp), "--concurrency", String(concurrency),
                         "--connections", "1"]
        let floorExecutable = try await CurlFloor.compile(scriptsFolder: scriptsFolder, folder: folder)
        var ours: [RateFigure] = []
        var theirs: [RateFigure] = []
        var floor: [RateFigure] = []
        var floorCommand = ""
        var version = "unknown"
        for round in 0..<rounds {
            // Rotate who goes first so that none always gets the warmer (or noisier) slot.
            for side in [[0, 1, 2], [1, 2, 0], [2, 0, 1]][round % 3] {
                switch side {
                case 0:
                    ours.append(try await runOurs(simulator: simulator, key: key))
                case 1:
                    let (figure, seen) = try await runPeer(simulator: simulator, arguments: arguments, round: round)
                    theirs.append(figure)
                    version = seen
                default:
                    let (figure, command) = try await runFloor(simulator: simulator, key: key, executable: floorExecutable,
                                                               bodyFile: payloadFile, round: round)
                    floor.append(figure)
                    floorCommand = command
                }
            }
            try simulator.checkAlive(during: "part 2, round \(round + 1)")
            logger.info("peer", ["round": String(round + 1), "ours_per_s": String(Int(ours.last?.rate ?? 0)),
                                 "aioapns_per_s": String(Int(theirs.last?.rate ?? 0)),
                                 "curl_floor_per_s": String(Int(floor.last?.rate ?? 0))])
        }
        let aioapnsMedian = theirs.map(\.rate).median
        let floorMedian = floor.map(\.rate).median
        let ratio = aioapnsMedian > 0 ? ours.map(\.rate).median / aioapnsMedian : 0
        return PeerReport(pushes: pushes, concurrency: concurrency, connections: 1, bodyBytes: Self.payload.count,
                          ours: ours, aioapns: theirs, aioapnsVersion: version, ratio: ratio, target: Self.target, met: ratio >= Self.target,
                          command: ([Self.python] + arguments).map(CeilingBenchmark.shellQuoted).joined(separator: " "),
                          curlFloor: floor, floorRatio: floorMedian > 0 ? ours.map(\.rate).median / floorMedian : 0,
                          floorOverAioapns: aioapnsMedian > 0 ? floorMedian / aioapnsMedian : 0, curlFloorCommand: floorCommand)
    }

    /// The floor sends the same pushes as ours and aioapns: apns.md §7's headers and a fresh
    /// `apns-id` each, as both of them send (aioapns always does; ours is given one per push).
    /// Until 2026-12-03 the floor sent no `apns-id`, a smaller request than the other two.
    private func runFloor(simulator: SimulatorProcess, key: BenchKey, executable: String, bodyFile: String,
                          round: Int) async throws -> (RateFigure, String) {
        let headers: [(String, String)] = [
            ("authorization", "bearer " + (try key.providerToken())),
            ("apns-push-type", "liveactivity"),
            ("apns-topic", CeilingBenchmark.bundleID + ".push-type.liveactivity"),
            ("apns-priority", "10"),
            ("content-type", "application/json"),
        ]
        let before = ProcFS.sample(pid: simulator.process.pid)?.cpuSeconds ?? 0
        let outcome = try await CurlFloor.run(
            executable: executable, url: "https://127.0.0.1:\(simulator.sendPort)/3/device/\(Self.deviceToken)", headers: headers,
            uniqueHeader: "apns-id", bodyFile: bodyFile, caFile: simulator.caCertificatePath, requests: pushes, connections: 1, streams: concurrency,
            folder: folder, label: "curl-floor-device-r\(round)", timeLimit: .seconds(180))
        let after = ProcFS.sample(pid: simulator.process.pid)?.cpuSeconds ?? before
        let figure = RateFigure(rate: outcome.rate, succeeded: outcome.succeeded, failed: outcome.failed, seconds: outcome.seconds,
                                clientCPUSeconds: outcome.clientCPUSeconds, serverCPUSeconds: after - before)
        return (figure, outcome.command.map(CeilingBenchmark.shellQuoted).joined(separator: " "))
    }

    private func runOurs(simulator: SimulatorProcess, key: BenchKey) async throws -> RateFigure {
        let credentials = try key.credentials()
        let client = try APNsClient(configuration: simulator.clientConfiguration(connections: 1, streams: concurrency), logger: logger)
        let push = DevicePush(token: Self.deviceToken, topic: CeilingBenchmark.bundleID + ".push-type.liveactivity",
                              pushType: .liveActivity, priority: .immediate, payload: Self.payload)
        let send: @Sendable (Int) async throws -> APNsResponse = { _ in
            var fresh = push
            // A fresh id per push, as aioapns sends one (uuid4), from the client's own generator.
            fresh.requestID = .randomRequestID()
            return try await client.sendToDevice(fresh, credentials: credentials)
        }
        let serverBefore = ProcFS.sample(pid: simulator.process.pid)?.cpuSeconds ?? 0
        _ = await LoadRunner.run(total: warmUp, lanes: concurrency, timeLimit: .seconds(60), send: send)
        let outcome = await LoadRunner.run(total: pushes, lanes: concurrency, timeLimit: .seconds(120), send: send)
        let serverAfter = ProcFS.sample(pid: simulator.process.pid)?.cpuSeconds ?? serverBefore
        await client.shutdown()
        return RateFigure(rate: outcome.rate, succeeded: outcome.succeeded, failed: pushes - outcome.succeeded,
                          seconds: outcome.seconds, clientCPUSeconds: outcome.clientCPUSeconds,
                          serverCPUSeconds: serverAfter - serverBefore)
    }

    private func runPeer(simulator: SimulatorProcess, arguments: [String], round: Int) async throws -> (RateFigure, String) {
        let serverBefore = ProcFS.sample(pid: simulator.process.pid)?.cpuSeconds ?? 0
        let process = try ChildProcess(name: "aioapns", executable: Self.python, arguments: arguments,
                                       stdoutPath: folder + "/aioapns-r\(round).out", stderrPath: folder + "/aioapns-r\(round).err")
        let (exit, killed) = await process.waitForExit(timeout: .seconds(300))
        let serverAfter = ProcFS.sample(pid: simulator.process.pid)?.cpuSeconds ?? serverBefore
        guard !killed, exit.status == 0,
              let line = process.standardOutput.split(separator: "\n").last(where: { $0.hasPrefix("{") }),
              let object = try? JSONParser().parse(String(line)),
              let succeeded = object["succeeded"]?.integerValue, let failed = object["failed"]?.integerValue,
              let seconds = object["seconds"]?.doubleValue, let cpu = object["cpu_seconds"]?.doubleValue else {
            throw BenchError("aioapns run failed (exit \(exit.status)\(killed ? ", killed after the time limit" : "")):\n\(process.standardErrorTail())")
        }
        let figure = RateFigure(rate: seconds > 0 ? Double(succeeded) / seconds : 0, succeeded: succeeded,
                                failed: failed + (pushes - succeeded - failed), seconds: seconds, clientCPUSeconds: cpu,
                                serverCPUSeconds: serverAfter - serverBefore)
        return (figure, object["version"]?.stringValue ?? "unknown")
    }
}
