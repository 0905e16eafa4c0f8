import APNs
import Foundation
import ScorecastLogging
import ScorecastCore

/// Part 1: broadcasts per second from our `APNsClient` to the simulator over TLS against
/// `h2load` and against the libcurl floor (`CurlFloor`: libcurl's multi interface driven from
/// C) sending the same requests (path, headers with a real provider token, body bytes) to the
/// same simulator process, round after round, back to back. Our client runs twice per round:
/// one task per request in flight (`sendBroadcast`), and batched as the delivery workers send
/// (`sendBroadcasts`: lanes that each send `batchSize` and await them all, as many in flight).
struct CeilingBenchmark {
    /// Requests per run.
    var requests: Int
    /// Rounds (the median of each side is reported).
    var rounds: Int
    /// Connection counts to measure.
    var connectionCounts: [Int]
    /// Streams per connection for both load generators.
    var streams: Int
    /// Broadcasts per batch in the batched run of our client (its lanes: connections × streams
    /// ÷ this, so that as many requests are in flight as in the other runs).
    var batchSize: Int
    /// The run folder.
    var folder: String
    /// Where `curl_floor.c` is.
    var scriptsFolder: String
    /// The benchmark's logger.
    var logger: Logger

    /// The app the broadcasts are for.
    static let bundleID = "com.scorecast.bench"

    /// A goal update with an alert: the largest payload a game sends routinely.
    static let payload = Array(#"{"aps":{"timestamp":1764453600,"event":"update","content-state":{"homeScore":2,"awayScore":1,"period":"2H","clock":"67'","lastEvent":"goal","homeTeam":"ARS","awayTeam":"CHE"},"stale-date":1764454200,"relevance-score":75,"alert":{"title":{"loc-key":"GOAL_TITLE","loc-args":["Arsenal"]},"body":{"loc-key":"GOAL_BODY","loc-args":["Saka","67"]},"sound":"default"}}}"#.utf8)

    /// Runs every round and returns the report.
    func run(key: BenchKey) async throws -> CeilingReport {
        let simulator = try await SimulatorProcess.start(folder: folder, key: key, bundleIDs: [Self.bundleID], label: "sim-ceiling")
        do {
            let report = try await measure(simulator: simulator, key: key)
            await simulator.stop()
            return report
        } catch {
            await simulator.stop()
            throw error
        }
    }

    private func measure(simulator: SimulatorProcess, key: BenchKey) async throws -> CeilingReport {
        let credentials = try key.credentials()
        // One channel for both generators: h2load's headers are fixed, so ours uses the same id.
        let setup = try APNsClient(configuration: simulator.clientConfiguration(connections: 1, streams: 10), logger: logger)
        let created = try await setup.createChannel(bundleID: Self.bundleID, policy: .noMessageStored, credentials: credentials)
        await setup.shutdown()
        guard created.isSuccess, let channelID = created.channelID else {
            throw BenchError("the simulator refused channel creation: \(created.status) \(created.reason?.rawValue ?? "")")
        }
        let bodyFile = folder + "/broadcast-body.json"
        guard FileManager.default.createFile(atPath: bodyFile, contents: Data(Self.payload)) else {
            throw BenchError("cannot write \(bodyFile)")
        }
        let broadcast = Broadcast(bundleID: Self.bundleID, channelID: channelID, priority: .opportunistic,
                                  expiration: 0, payload: Self.payload)
        let url = "https://127.0.0.1:\(simulator.sendPort)/4/broadcasts/apps/\(Self.bundleID)"
        let headers: [(String, String)] = [
            ("authorization", "bearer " + (try key.providerToken())),
            ("apns-channel-id", channelID),
            ("apns-push-type", "liveactivity"),
            ("apns-priority", "5"),
            ("apns-expiration", "0"),
            ("content-type", "application/json"),
        ]

        let floorExecutable = try await CurlFloor.compile(scriptsFolder: scriptsFolder, folder: folder)
        var rows: [CeilingRow] = []
        for connections in connectionCounts {
            var ours: [RateFigure] = []
            var theirs: [RateFigure] = []
            var floor: [RateFigure] = []
            var batched: [RateFigure] = []
            var ratios: [Double] = []
            var command = ""
            var floorCommand = ""
            for round in 0..<rounds {
                // Rotate who goes first so that none always gets the warmer (or noisier) slot.
                var pair: (RateFigure?, RateFigure?) = (nil, nil)
                for side in [[0, 1, 2, 3], [1, 2, 3, 0], [2, 3, 0, 1], [3, 0, 1, 2]][round % 4] {
                    if side == 3 {
                        batched.append(try await runOursBatched(simulator: simulator, credentials: credentials, broadcast: broadcast,
                                                                connections: connections))
                    } else if side == 2 {
                        let before = ProcFS.sample(pid: simulator.process.pid)?.cpuSeconds ?? 0
                        let outcome = try await CurlFloor.run(
                            executable: floorExecutable, url: url, headers: headers, bodyFile: bodyFile, caFile: simulator.caCertificatePath,
                            requests: requests, connections: connections, streams: streams, folder: folder,
                            label: "curl-floor-c\(connections)-r\(round)", timeLimit: .seconds(180))
                        let after = ProcFS.sample(pid: simulator.process.pid)?.cpuSeconds ?? before
                        floorCommand = outcome.command.map(Self.shellQuoted).joined(separator: " ")
                        floor.append(RateFigure(rate: outcome.rate, succeeded: outcome.succeeded, failed: outcome.failed,
                                                seconds: outcome.seconds, clientCPUSeconds: outcome.clientCPUSeconds,
                                                serverCPUSeconds: after - before))
                    } else if side == 0 {
                        pair.0 = try await runOurs(simulator: simulator, credentials: credentials, broadcast: broadcast,
                                                   connections: connections)
                    } else {
                        let before = ProcFS.sample(pid: simulator.process.pid)?.cpuSeconds ?? 0
                        let outcome = try await H2Load.run(
                            url: url, headers: headers, bodyFile: bodyFile, requests: requests, connections: connections,
                            streams: streams, folder: folder, label: "h2load-c\(connections)-r\(round)", timeLimit: .seconds(180))
                        let after = ProcFS.sample(pid: simulator.process.pid)?.cpuSeconds ?? before
                        command = outcome.command.map(Self.shellQuoted).joined(separator: " ")
                        pair.1 = RateFigure(rate: outcome.rate, succeeded: outcome.succeeded, failed: outcome.failed,
                                            seconds: outcome.seconds, clientCPUSeconds: outcome.clientCPUSeconds,
                                            serverCPUSeconds: after - before)
                    }
                }
                try simulator.checkAlive(during: "part 1, \(connections) connection(s), round \(round + 1)")
                guard let mine = pair.0, let reference = pair.1 else { continue }
                ours.append(mine)
                theirs.append(reference)
                ratios.append(reference.rate > 0 ? mine.rate / reference.rate : 0)
                logger.info("ceiling", ["connections": String(connections), "round": String(round + 1),
                                        "ours_per_s": String(Int(mine.rate)), "h2load_per_s": String(Int(reference.rate))])
            }
            let oursMedian = ours.map(\.rate).median
            let theirsMedian = theirs.map(\.rate).median
            let floorMedian = floor.map(\.rate).median
            let batchedMedian = batched.map(\.rate).median
            rows.append(CeilingRow(connections: connections, streams: streams, requests: requests, ours: ours, h2load: theirs,
                                   ratio: theirsMedian > 0 ? oursMedian / theirsMedian : 0, roundRatios: ratios,
                                   h2loadCommand: command, curlFloor: floor,
                                   floorRatio: floorMedian > 0 ? oursMedian / floorMedian : 0, curlFloorCommand: floorCommand,
                                   oursBatched: batched, batchSize: batchSize, batchLanes: batchLanes(connections: connections),
                                   batchedFloorRatio: floorMedian > 0 ? batchedMedian / floorMedian : 0))
        }
        return CeilingReport(bodyBytes: Self.payload.count,
                             topology: "simulator in its own process (scorecast-bench sim); each load generator in another (the benchmark process for ours, h2load -t 1 for the reference); 2 cores shared",
                             rows: rows, target: 0.5, met: rows.allSatisfy { $0.ratio >= 0.5 })
    }

    /// One run of our client: a fresh client (so connection set-up is in the run, as for h2load).
    private func runOurs(simulator: SimulatorProcess, credentials: APNsCredentials, broadcast: Broadcast,
                         connections: Int) async throws -> RateFigure {
        try await measureOurs(simulator: simulator, connections: connections, what: "our client") { client in
            await LoadRunner.run(total: requests, lanes: connections * streams, timeLimit: .seconds(180)) { _ in
                try await client.sendBroadcast(broadcast, credentials: credentials)
            }
        }
    }

    /// The batched run's lanes: as many requests in flight as the per-request run's.
    private func batchLanes(connections: Int) -> Int { max(1, connections * streams / max(1, batchSize)) }

    /// One batched run of our client: lanes that each send `batchSize` broadcasts as one
    /// `sendBroadcasts` batch and await them all, as a delivery worker sends a claimed batch.
    private func runOursBatched(simulator: SimulatorProcess, credentials: APNsCredentials, broadcast: Broadcast,
                                connections: Int) async throws -> RateFigure {
        let batch = Array(repeating: broadcast, count: batchSize)
        return try await measureOurs(simulator: simulator, connections: connections, what: "our batched client") { client in
            await LoadRunner.runBatched(total: requests, lanes: batchLanes(connections: connections), batchSize: batchSize,
                                        timeLimit: .seconds(180)) { indices in
                await client.sendBroadcasts(indices.count == batch.count ? batch : Array(batch.prefix(indices.count)), credentials: credentials)
            }
        }
    }

    /// Runs `load` on a fresh client and measures it: the rate, the client's CPU, the
    /// simulator's CPU over the run; failures are logged as `what`'s.
    private func measureOurs(simulator: SimulatorProcess, connections: Int, what: String,
                             load: (APNsClient) async -> LoadOutcome) async throws -> RateFigure {
        let client = try APNsClient(configuration: simulator.clientConfiguration(connections: connections, streams: streams),
                                    logger: logger)
        let before = ProcFS.sample(pid: simulator.process.pid)?.cpuSeconds ?? 0
        let outcome = await load(client)
        let after = ProcFS.sample(pid: simulator.process.pid)?.cpuSeconds ?? before
        await client.shutdown()
        if !outcome.errors.isEmpty || outcome.succeeded < outcome.answered {
            logger.warning("\(what) had failures", ["errors": "\(outcome.errors)", "statuses": "\(outcome.statuses)"])
        }
        return RateFigure(rate: outcome.rate, succeeded: outcome.succeeded,
                          failed: requests - outcome.succeeded, seconds: outcome.seconds,
                          clientCPUSeconds: outcome.clientCPUSeconds, serverCPUSeconds: after - before)
    }

    /// Quotes a word for a shell command line when it needs it.
    static func shellQuoted(_ word: String) -> String {
        let plain = word.unicodeScalars.allSatisfy { CharacterSet.alphanumerics.contains($0) || "-_./:=,@".unicodeScalars.contains($0) }
        return plain && !word.isEmpty ? word : "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}
