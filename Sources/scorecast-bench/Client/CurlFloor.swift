import ChildProcesses
import Foundation

/// The libcurl floor of part 1: `Deploy/bench/curl_floor.c`, a minimal C program driving
/// libcurl's multi interface the recommended way, compiled with gcc in the run and sent the
/// same broadcasts as our client and h2load. Our client ÷ this is what the Swift layer costs
/// on top of the library it is built on.
enum CurlFloor {
    /// Compiles the program into `folder`; returns the executable's path.
    static func compile(scriptsFolder: String, folder: String) async throws -> String {
        let source = scriptsFolder + "/curl_floor.c"
        let executable = folder + "/curl-floor"
        let process = try ChildProcess(name: "gcc", executable: "gcc", arguments: ["-O2", "-o", executable, source, "-lcurl"],
                                       stdoutPath: folder + "/curl-floor-gcc.out", stderrPath: folder + "/curl-floor-gcc.err")
        let (exit, killed) = await process.waitForExit(timeout: .seconds(120))
        guard !killed, exit.status == 0 else {
            throw BenchError("gcc could not build \(source) (apt-get install gcc libcurl4-openssl-dev): \(process.standardErrorTail())")
        }
        return executable
    }

    /// Sends `requests` POSTs of `bodyFile` to `url` over `connections` × `streams`; with
    /// `uniqueHeader`, each also carries that header with a fresh lowercase UUID (`apns-id`).
    static func run(executable: String, url: String, headers: [(String, String)], uniqueHeader: String? = nil, bodyFile: String,
                    caFile: String, requests: Int, connections: Int, streams: Int, folder: String, label: String,
                    timeLimit: Duration) async throws -> H2LoadOutcome {
        var arguments = ["-n", String(requests), "-c", String(connections), "-m", String(streams), "-d", bodyFile, "--cacert", caFile]
        for (name, value) in headers { arguments += ["-H", "\(name): \(value)"] }
        if let uniqueHeader { arguments += ["-u", uniqueHeader] }
        arguments.append(url)
        let process = try ChildProcess(name: "curl-floor", executable: executable, arguments: arguments,
                                       stdoutPath: folder + "/\(label).out", stderrPath: folder + "/\(label).err")
        let (exit, killed) = await process.waitForExit(timeout: timeLimit)
        guard !killed else { throw BenchError("curl-floor did not finish within \(timeLimit)") }
        guard exit.status == 0, let parsed = parse(process.standardOutput) else {
            throw BenchError("curl-floor exited with \(exit.status): \(process.standardErrorTail())\n\(process.standardOutput.suffix(400))")
        }
        let shown = (["curl-floor"] + arguments).map { $0.hasPrefix("authorization: ") ? "authorization: bearer <JWT>" : $0 }
        return H2LoadOutcome(command: shown, succeeded: parsed.succeeded, failed: parsed.failed, seconds: parsed.seconds,
                             reportedRate: parsed.seconds > 0 ? Double(parsed.succeeded) / parsed.seconds : 0,
                             clientCPUSeconds: exit.cpuSeconds)
    }

    /// Reads the program's one line: `succeeded N failed N seconds S`.
    static func parse(_ output: String) -> (succeeded: Int, failed: Int, seconds: Double)? {
        guard let match = output.firstMatch(of: /succeeded (\d+) failed (\d+) seconds ([0-9.]+)/),
              let succeeded = Int(match.1), let failed = Int(match.2), let seconds = Double(match.3) else { return nil }
        return (succeeded, failed, seconds)
    }
}
