import ChildProcesses
import Foundation
import Postgres
import ScorecastLogging
import ServiceBase

/// Parts 3–5 and 7: `scorecast serve` (release) as real processes against a durable Postgres and the
/// simulator process; the feed is this process, posting over HTTP.
struct EndToEndSuite {
    let options: BenchOptions
    let folder: String
    let key: BenchKey
    let logger: Logger

    /// Runs the selected parts, adding their figures to `report`; `checkpoint` saves progress.
    func run(into report: inout BenchReport, checkpoint: (BenchReport) -> Void) async {
        let scorecast = options.scorecastBinary ?? (URL(fileURLWithPath: BenchPaths.selfExecutable)
            .deletingLastPathComponent().appendingPathComponent("scorecast").path)
        guard FileManager.default.isExecutableFile(atPath: scorecast) else {
            report.skipped["3–5, 7 end to end"] = "no scorecast binary at \(scorecast) (build it: swift build -c release --product scorecast)"
            return
        }
        let environment: EndToEndEnvironment
        do {
            // Part 7 alone needs only its matches' games; with parts 3–5, enough for both.
            let games = options.parts.isDisjoint(with: [3, 4, 5]) ? options.saturdayMatchCount
                : options.parts.contains(7) ? max(options.games, options.saturdayMatchCount) : options.games
            environment = try await EndToEndEnvironment.make(folder: folder, key: key, gameCount: games,
                                                             appCount: options.channelsPerGame, scorecast: scorecast,
                                                             postgresSettings: options.postgresSettings, logger: logger)
        } catch {
            report.skipped["3–5, 7 end to end"] = "setup failed: \(error)"
            return
        }
        report.endToEndSetup = [
            "games": String(environment.games.count),
            "channels per game": "\(options.channelsPerGame) (one per app, \(options.channelsPerGame) apps)",
            "channels": String(environment.channels),
            "events": String(format: "one per POST /v1/events; %.0f %% alerting (score: priority 10, sent at once), the rest routine (clock: priority 5, shaped to one send per channel per SCORECAST_ROUTINE_INTERVAL_MS, default \(Setting.routineIntervalMilliseconds.defaultText) ms)", options.alertingShare * 100),
            "postgres": ((try? await EndToEndEnvironment.settingsLine(environment.pool, extra: options.postgresSettings)) ?? "?")
                + (options.postgresSettings.isEmpty ? " (embedded, durable, scorecast's settings)"
                    : " (embedded, durable, scorecast's settings except " + options.postgresSettings.map(\.description).joined(separator: ", ") + ")"),
            "scorecast serve": options.serveEnvironment.isEmpty
                ? "release build, default settings (" + Self.defaultsShown + ")"
                : "release build, defaults except " + options.serveEnvironment.sorted(by: { $0.key < $1.key }).map { "\($0.key)=\($0.value)" }.joined(separator: ", "),
            "connections per address": "no cap (SCORECAST_HTTP_MAX_CONNECTIONS_PER_ADDRESS=0 unless --serve-env sets it): the feed is one address standing in for many feeds",
            "window per run": "\(Int(runSeconds)) s",
            "channel creations retried during setup": environment.setupRetries.isEmpty ? "none"
                : "\(environment.setupRetries.count): \(environment.setupRetries.first ?? "")",
            "sustained means": "≥ 95 % of the target rate posted, no ingest failure, the feed never > 1 s behind schedule, ≤ 1 % of channels overdue at the end, the outbox drained within 30 s",
        ]
        checkpoint(report)
        var tag = 0
        func nextTag() -> (String, Int) {
            tag += 1
            return ("r\(tag)", tag * 1_000_000)
        }
        let runner = EndToEndRunner(environment: environment, logger: logger, alertingShare: options.alertingShare)
        var saturatingRate = options.rates.max() ?? 2000

        if options.parts.contains(3) {
            do {
                let serve = try await ServeProcess.start(environment: environment, roles: "api,worker,poller", label: "serve-part3",
                                                         extraEnvironment: options.serveEnvironment)
                var sustainedRates: [Int] = []
                for rate in options.rates {
                    let (runTag, seqBase) = nextTag()
                    let (run, _) = try await runner.run(rate: rate, seconds: runSeconds, serves: [serve], runTag: runTag, seqBase: seqBase)
                    report.endToEnd.append(run)
                    if run.sustained { sustainedRates.append(rate) }
                    checkpoint(report)
                }
                // Then upwards until a rate is not sustained (bounded: at most 5 more steps).
                var rate = Int(Double(options.rates.max() ?? 2000) * 1.5)
                var steps = 0
                while steps < 5, report.endToEnd.last?.sustained == true {
                    let (runTag, seqBase) = nextTag()
                    let (run, _) = try await runner.run(rate: rate, seconds: runSeconds, serves: [serve], runTag: runTag, seqBase: seqBase)
                    report.endToEnd.append(run)
                    checkpoint(report)
                    rate = Int(Double(rate) * 1.5)
                    steps += 1
                }
                // Between the highest rate sustained and the lowest one above it that was not:
                // halve the gap (bounded: at most 3 more runs), to find the highest sustainable.
                var search = SustainableRateSearch(runs: report.endToEnd.map { ($0.targetEventsPerSecond, $0.sustained) })
                while let next = search.nextRate() {
                    let (runTag, seqBase) = nextTag()
                    let (run, _) = try await runner.run(rate: next, seconds: runSeconds, serves: [serve], runTag: runTag, seqBase: seqBase)
                    report.endToEnd.append(run)
                    search.record(rate: next, sustained: run.sustained)
                    checkpoint(report)
                }
                saturatingRate = search.lowestUnsustained ?? report.endToEnd.last?.targetEventsPerSecond ?? saturatingRate
                // A separate short run at that rate (or the one asked for) with the profilers
                // attached (not in the table).
                let (runTag, seqBase) = nextTag()
                await profile(rate: options.profileRate ?? saturatingRate, serve: serve, runner: runner, environment: environment,
                              runTag: runTag, seqBase: seqBase, into: &report)
                checkpoint(report)
                await serve.stop()
            } catch {
                report.skipped["3 end to end"] = "\(error)"
            }
        }

        if options.parts.contains(4) {
            do {
                let serve = try await ServeProcess.start(environment: environment, roles: "api,worker,poller", label: "serve-part4",
                                                         extraEnvironment: options.serveEnvironment)
                let (runTag, seqBase) = nextTag()
                let (run, samples) = try await runner.run(rate: options.memoryRate, seconds: Double(memorySeconds), serves: [serve],
                                                          runTag: runTag, seqBase: seqBase, sampleMemoryOf: serve)
                report.memory = memoryReport(run: run, samples: samples)
                checkpoint(report)
                await serve.stop()
            } catch {
                report.skipped["4 memory"] = "\(error)"
            }
        }

        if options.parts.contains(5) {
            for workers in [1, 2, 4] {
                var serves: [ServeProcess] = []
                do {
                    serves.append(try await ServeProcess.start(environment: environment, roles: "api,worker,poller", label: "serve-part5-\(workers)",
                                                               extraEnvironment: options.serveEnvironment))
                    for extra in 1..<workers {
                        serves.append(try await ServeProcess.start(environment: environment, roles: "worker",
                                                                   label: "worker-part5-\(workers)-\(extra)",
                                                                   extraEnvironment: options.serveEnvironment))
                    }
                    let (runTag, seqBase) = nextTag()
                    let (run, _) = try await runner.run(rate: saturatingRate, seconds: runSeconds, serves: serves, runTag: runTag, seqBase: seqBase)
                    report.scaling.append(ScalingRow(workerProcesses: workers, run: run))
                    checkpoint(report)
                } catch {
                    report.skipped["5 scaling (\(workers) worker processes)"] = "\(error)"
                }
                for serve in serves { await serve.stop() }
            }
        }
        if options.parts.contains(7) {
            do {
                let serve = try await ServeProcess.start(environment: environment, roles: "api,worker,poller", label: "serve-part7",
                                                         extraEnvironment: options.serveEnvironment)
                let (runTag, seqBase) = nextTag()
                let part = SaturdayBenchmark(matches: options.saturdayMatchCount, speed: options.saturdaySpeedFactor,
                                             kickoffSpreadSeconds: 300, runner: runner, logger: logger)
                do {
                    report.saturday = try await part.run(serve: serve, runTag: runTag, seqBase: seqBase,
                                                         channelsPerMatch: options.channelsPerGame)
                } catch {
                    report.skipped["7 saturday"] = "\(error)"
                }
                checkpoint(report)
                await serve.stop()
            } catch {
                report.skipped["7 saturday"] = "\(error)"
            }
        }
        await environment.shutdown()
    }

    /// The defaults that shape the end-to-end figures, read from scorecast's own settings table.
    private static var defaultsShown: String {
        let shown = [Setting.workers.name, Setting.claimBatch.name, Setting.ingestTransactions.name, Setting.databasePoolSize.name,
                     Setting.apnsConnections.name, Setting.httpThreads.name]
        return shown.compactMap { name in
            Configuration.settings.first { $0.name == name }.map { "\(name)=\($0.defaultText)" }
        }.joined(separator: ", ")
    }

    private var runSeconds: Double { options.quick ? 15 : 30 }
    private var memorySeconds: Int { options.memorySeconds ?? (options.quick ? 60 : 600) }

    private func profile(rate: Int, serve: ServeProcess, runner: EndToEndRunner, environment: EndToEndEnvironment,
                         runTag: String, seqBase: Int, into report: inout BenchReport) async {
        let walStart = await Profiler.resetDatabaseStatistics(environment.pool)
        let seconds = 10
        var recordings: [(label: String, file: String, process: ChildProcess)] = []
        if Profiler.perfAvailable {
            if let recording = try? Profiler.record(pid: serve.process.pid, seconds: seconds, name: "serve", folder: folder) {
                recordings.append(("scorecast serve", "serve", recording))
            }
            if let postmaster = await environment.postmasterPID() {
                // The backends are children of the postmaster: perf follows the whole tree only
                // with -a, so sample the busiest backends one by one instead.
                let busiest = ProcFS.children(of: postmaster)
                    .compactMap { pid in ProcFS.sample(pid: pid).map { (pid, $0.cpuSeconds) } }
                    .sorted { $0.1 > $1.1 }.prefix(1)
                for (pid, _) in busiest {
                    if let recording = try? Profiler.record(pid: pid, seconds: seconds, name: "postgres-backend", folder: folder) {
                        recordings.append(("busiest postgres backend", "postgres-backend", recording))
                    }
                }
            }
        }
        let pool = environment.pool
        let waits = Task { await Profiler.sampleWaits(pool, seconds: seconds) }
        var broadcasts = 0.0
        do {
            let (run, _) = try await runner.run(rate: rate, seconds: Double(seconds), serves: [serve], runTag: runTag, seqBase: seqBase)
            report.profiles["run profiled"] = String(format: "%d events/s for %d s: %.0f broadcasts/s, posted %.0f events/s (profilers attached, so not in the tables)",
                                                     rate, seconds, run.broadcastsPerSecond, run.postedEventsPerSecond)
            broadcasts = Double(run.broadcasts)
        } catch {
            report.profiles["run profiled"] = "failed: \(error)"
        }
        for recording in recordings {
            report.profiles["perf: \(recording.label)"] = await Profiler.summary(of: recording.process, name: recording.file, folder: folder)
        }
        report.profiles["postgres"] = await Profiler.databaseSummary(environment.pool, seconds: Double(seconds))
        report.profiles["postgres waits"] = await waits.value
        report.profiles["postgres WAL by table"] = await Profiler.walByRelation(environment.pool, from: walStart, broadcasts: broadcasts)
    }

    private func memoryReport(run: EndToEndRun, samples: [MemorySample]) -> MemoryReport {
        let warmUp = options.quick ? 20.0 : 60.0
        let mib = samples.map { [$0.seconds, Double($0.rssBytes) / 1_048_576] }
        let (afterWarmUp, atEnd) = Self.warmUpAndEnd(mib, warmUp: warmUp)
        let growth = MemoryReading.growthPercent(from: afterWarmUp, to: atEnd)
        let heap = samples.compactMap { sample in sample.heapInUseBytes.map { [sample.seconds, Double($0) / 1_048_576] } }
        let (heapAfterWarmUp, heapAtEnd) = Self.warmUpAndEnd(heap, warmUp: warmUp)
        let heapMeasured = heapAfterWarmUp > 0 && heapAtEnd > 0
        let heapGrowth = heapMeasured ? MemoryReading.growthPercent(from: heapAfterWarmUp, to: heapAtEnd) : nil
        return MemoryReport(eventsPerSecond: run.targetEventsPerSecond, seconds: run.seconds, warmUpSeconds: warmUp, samples: mib,
                            rssAfterWarmUpMiB: afterWarmUp, rssAtEndMiB: atEnd, growthPercent: growth,
                            heapSamples: heap, heapAfterWarmUpMiB: heapMeasured ? heapAfterWarmUp : nil,
                            heapAtEndMiB: heapMeasured ? heapAtEnd : nil, heapGrowthPercent: heapGrowth,
                            reading: MemoryReading.reading(rssGrowthPercent: growth, heapGrowthPercent: heapGrowth),
                            peakMiB: mib.map { $0[1] }.max() ?? 0, run: run, target: 10, met: growth < 10 && afterWarmUp > 0)
    }

    /// The median of the first ten samples after `warmUp` seconds and of the last ten (0 when none).
    private static func warmUpAndEnd(_ samples: [[Double]], warmUp: Double) -> (Double, Double) {
        (samples.filter { $0[0] >= warmUp }.prefix(10).map { $0[1] }.median, samples.suffix(10).map { $0[1] }.median)
    }
}
