import ChildProcesses
import Foundation

/// One `h2load` run: what it was asked and what it printed.
struct H2LoadOutcome: Sendable {
    /// The command line, for the report.
    let command: [String]
    /// Requests that got a 2xx.
    let succeeded: Int
    /// Requests that failed or errored.
    let failed: Int
    /// The wall time h2load reports ("finished in …").
    let seconds: Double
    /// h2load's own requests per second.
    let reportedRate: Double
    /// CPU seconds h2load used (wait4).
    let clientCPUSeconds: Double

    /// 2xx answers per second over h2load's time.
    var rate: Double { seconds > 0 ? Double(succeeded) / seconds : 0 }
}

/// Runs nghttp2's `h2load` (the ceiling: a C HTTP/2 load generator) with fixed headers and body.
enum H2Load {
    /// Sends `requests` POSTs of `bodyFile` to `url` with `headers` over `connections`
    /// connections × `streams` concurrent streams, on one thread (like our client's one transport thread).
    static func run(url: String, headers: [(String, String)], bodyFile: String, requests: Int, connections: Int,
                    streams: Int, folder: String, label: String, timeLimit: Duration) async throws -> H2LoadOutcome {
        var arguments = ["-n", String(requests), "-c", String(connections), "-m", String(streams), "-t", "1",
                         "-d", bodyFile]
        for (name, value) in headers { arguments += ["-H", "\(name): \(value)"] }
        arguments.append(url)
        let process = try ChildProcess(name: "h2load", executable: "h2load", arguments: arguments,
                                       stdoutPath: folder + "/\(label).out", stderrPath: folder + "/\(label).err")
        let (exit, killed) = await process.waitForExit(timeout: timeLimit)
        let output = process.standardOutput
        guard !killed else { throw BenchError("h2load did not finish within \(timeLimit)") }
        guard exit.status == 0 else {
            throw BenchError("h2load exited with \(exit.status): \(process.standardErrorTail())\n\(output.suffix(800))")
        }
        let parsed = try parse(output)
        // The command line carries a live provider token: the report shows it redacted.
        let shown = (["h2load"] + arguments).map { $0.hasPrefix("authorization: ") ? "authorization: bearer <JWT>" : $0 }
        return H2LoadOutcome(command: shown, succeeded: parsed.succeeded, failed: parsed.failed, seconds: parsed.seconds,
                             reportedRate: parsed.rate, clientCPUSeconds: exit.cpuSeconds)
    }

    /// Reads h2load's summary: 2xx answers, failed + errored requests, the wall time and its rate.
    static func parse(_ output: String) throws -> (succeeded: Int, failed: Int, seconds: Double, rate: Double) {
        guard let finished = output.firstMatch(of: /finished in ([0-9.]+)(ms|s|us), ([0-9.]+) req\/s/),
              let number = Double(finished.1), let rate = Double(finished.3),
              let counts = output.firstMatch(of: /requests: \d+ total, \d+ started, \d+ done, (\d+) succeeded, (\d+) failed, (\d+) errored/),
              let codes = output.firstMatch(of: /status codes: (\d+) 2xx/),
              let failed = Int(counts.2), let errored = Int(counts.3), let twoXX = Int(codes.1) else {
            throw BenchError("cannot read h2load's output:\n\(output.prefix(1200))")
        }
        let scale: Double = finished.2 == "ms" ? 0.001 : finished.2 == "us" ? 0.000001 : 1
        return (twoXX, failed + errored, number * scale, rate)
    }
}
