import ChildProcesses
import Foundation
import ScorecastCore
import Synchronization
import ScorecastLogging
import JSON

/// One `scorecast-bench run`: every selected part in turn, each measured against its reference
/// in the same run, then results.md and results.json.
struct BenchRun {
    let options: BenchOptions
    let logger = Logger(label: "bench", level: .info)

    /// Runs and returns the exit code (0 when every selected part ran, 1 otherwise).
    func run() async -> Int32 {
        installSignalHandlers()
        let folder = options.outputFolder + "/work"
        do {
            try? FileManager.default.removeItem(atPath: folder)
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        } catch {
            logger.error("cannot create \(folder): \(error)")
            return 1
        }
        var report = BenchReport(
            started: RFC3339.format(Date()), cores: ProcFS.coreCount,
            mode: options.quick ? "quick" : "full",
            command: (["scorecast-bench", "run"] + options.arguments).joined(separator: " "),
            tools: toolVersions(), ceiling: nil, peer: nil, endToEnd: [], endToEndSetup: [:], memory: nil, scaling: [],
            profiles: [:], skipped: [:])
        let key: BenchKey
        do {
            key = try BenchKey.generate(in: folder)
        } catch {
            logger.error("cannot make the benchmark key: \(error)")
            return 1
        }
        if options.parts.contains(1) {
            let part = CeilingBenchmark(requests: options.quick ? 40_000 : 150_000, rounds: options.quick ? 3 : 5, connectionCounts: [1, 4],
                                        streams: 100, batchSize: options.clientBatch, folder: folder, scriptsFolder: options.scriptsFolder,
                                        logger: logger)
            let load = ProcFS.loadAverage
            do { report.ceiling = try await part.run(key: key) } catch { report.skipped["1 client vs h2load"] = "\(error)" }
            report.loadAverage["1"] = "\(load) → \(ProcFS.loadAverage)"
            write(report)
        }
        if options.parts.contains(2) {
            let part = PeerBenchmark(pushes: options.quick ? 20_000 : 40_000, warmUp: 500, concurrency: 100, rounds: options.quick ? 3 : 5,
                                     folder: folder, scriptsFolder: options.scriptsFolder, logger: logger)
            let load = ProcFS.loadAverage
            do { report.peer = try await part.run(key: key) } catch { report.skipped["2 peer (aioapns)"] = "\(error)" }
            report.loadAverage["2"] = "\(load) → \(ProcFS.loadAverage)"
            write(report)
        }
        if !options.parts.isDisjoint(with: [3, 4, 5, 7]) {
            let load = ProcFS.loadAverage
            await EndToEndSuite(options: options, folder: folder, key: key, logger: logger).run(into: &report) { write($0) }
            let label = options.parts.intersection([3, 4, 5, 7]).sorted().map(String.init).joined(separator: ",")
            report.loadAverage[label == "3,4,5" ? "3–5" : label] = "\(load) → \(ProcFS.loadAverage)"
            write(report)
        }
        if options.parts.contains(6) {
            let scorecast = options.scorecastBinary ?? (URL(fileURLWithPath: BenchPaths.selfExecutable)
                .deletingLastPathComponent().appendingPathComponent("scorecast").path)
            let part = KickoffBenchmark(
                devices: options.devices ?? (options.quick ? 100_000 : 1_000_000), folder: folder + "/kickoff", key: key,
                scorecast: scorecast, serveEnvironment: options.serveEnvironment,
                postgresSettings: options.postgresSettings, logger: logger)
            let load = ProcFS.loadAverage
            do {
                try FileManager.default.createDirectory(atPath: folder + "/kickoff", withIntermediateDirectories: true)
                report.kickoff = try await part.run(clientRate: report.peer.map { $0.ours.map(\.rate).median })
            } catch {
                report.skipped["6 kick-off"] = "\(error)"
            }
            report.loadAverage["6"] = "\(load) → \(ProcFS.loadAverage)"
            write(report)
        }
        for (part, reason) in report.skipped.sorted(by: { $0.key < $1.key }) {
            logger.error("part \(part) did not run: \(reason)")
        }
        logger.info("results written", ["markdown": options.outputFolder + "/results.md",
                                         "json": options.outputFolder + "/results.json"])
        return report.skipped.isEmpty ? 0 : 1
    }

    /// Writes results.json and results.md (after every part, so a long run leaves partial results).
    private func write(_ report: BenchReport) {
        do {
            let json = Data(try JSONCoding.encode(report, dates: .foundationDefault, pretty: true))
            try json.write(to: URL(fileURLWithPath: options.outputFolder + "/results.json"))
            try Data(MarkdownReport.render(report).utf8).write(to: URL(fileURLWithPath: options.outputFolder + "/results.md"))
        } catch {
            logger.error("cannot write the results: \(error)")
        }
    }

    private func toolVersions() -> [String: String] {
        var tools: [String: String] = [:]
        tools["h2load"] = firstLine(of: "h2load", ["--version"])
        tools["python3-aioapns"] = firstLine(of: "dpkg-query", ["-W", "-f", "${Version}", "python3-aioapns"])
        tools["postgres"] = firstLine(of: PostgresPaths.binary("postgres"), ["--version"])
        tools["swift"] = firstLine(of: "swift", ["--version"])
        return tools
    }

    /// The first line a short command prints, or "unavailable".
    private func firstLine(of executable: String, _ arguments: [String]) -> String {
        let output = NSTemporaryDirectory() + "bench-version-\(getpid())-\(UUID().uuidString).txt"
        defer { unlink(output) }
        guard let child = try? ChildProcess(
            name: executable, executable: "/usr/bin/env", arguments: [executable] + arguments, stdoutPath: output, stderrPath: output)
        else { return "unavailable" }
        let status = child.waitUntilExit().status
        let line = child.standardOutput.split(separator: "\n").first.map(String.init) ?? ""
        return status == 0 && !line.isEmpty ? line : "unavailable"
    }

    /// SIGINT / SIGTERM end every child first, so an interrupted run leaves no load behind.
    private func installSignalHandlers() {
        for signalNumber in [SIGINT, SIGTERM] {
            signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
            source.setEventHandler {
                ChildRegistry.shared.signalAll(SIGTERM)
                ChildRegistry.shared.runCleanups()
                usleep(500_000)
                ChildRegistry.shared.signalAll(SIGKILL)
                exit(130)
            }
            source.resume()
            SignalSources.keep(source)
        }
    }
}

/// Keeps the signal sources alive for the life of the process.
enum SignalSources {
    /// A source is only retained here, never used again after `resume()`: handing it over is safe.
    private final class Box: @unchecked Sendable {
        let source: any DispatchSourceSignal
        init(_ source: any DispatchSourceSignal) { self.source = source }
    }

    private static let sources = Mutex<[Box]>([])

    /// Retains `source` until the process ends.
    static func keep(_ source: any DispatchSourceSignal) {
        let box = Box(source)
        sources.withLock { $0.append(box) }
    }
}

/// Where Debian keeps the PostgreSQL 15 server binaries (not on PATH).
enum PostgresPaths {
    static func binary(_ name: String) -> String { "/usr/lib/postgresql/15/bin/" + name }
}
