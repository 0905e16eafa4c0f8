import ChildProcesses
import APNs
import Foundation
import JSON

/// The APNs simulator as a process of its own (`scorecast-bench sim`, which runs the same code
/// as `scorecast apns-sim`), so that the load generators measured against it — our client,
/// `h2load`, aioapns, `scorecast serve` — each get the same topology: one client process and one
/// server process.
struct SimulatorProcess: Sendable {
    /// The running simulator.
    let process: ChildProcess
    /// Its send port.
    let sendPort: Int
    /// Its channel-management port.
    let managementPort: Int
    /// Its admin API port (HTTP/1.1).
    let adminPort: Int
    /// The CA certificate to trust.
    let caCertificatePath: String

    /// Starts the simulator with `extraArguments` and waits for its endpoints line.
    static func start(folder: String, key: BenchKey, bundleIDs: [String], extraArguments: [String] = [],
                      label: String = "apns-sim") async throws -> SimulatorProcess {
        let arguments = ["sim", "--team", key.simulatorTeamArgument(bundleIDs: bundleIDs), "--budget", "unlimited",
                         "--state-dir", folder + "/sim-state"] + extraArguments
        let process = try ChildProcess(name: label, executable: BenchPaths.selfExecutable, arguments: arguments,
                                       stdoutPath: folder + "/\(label).out", stderrPath: folder + "/\(label).log")
        let deadline = ContinuousClock.now + .seconds(20)
        while ContinuousClock.now < deadline {
            if let line = process.standardOutput.split(separator: "\n").first(where: { $0.hasPrefix("{") }),
               let object = try? JSONParser().parse(String(line)),
               let send = object["sendPort"]?.integerValue, let management = object["managementPort"]?.integerValue,
               let admin = object["adminPort"]?.integerValue, let ca = object["caCertificate"]?.stringValue {
                return SimulatorProcess(process: process, sendPort: send, managementPort: management, adminPort: admin,
                                        caCertificatePath: ca)
            }
            if let exit = process.poll() {
                throw BenchError("the simulator exited with \(exit.status) before listening:\n\(process.standardErrorTail())")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        await process.stop()
        throw BenchError("the simulator printed no endpoints line within 20 s:\n\(process.standardErrorTail())")
    }

    /// The client configuration for this simulator.
    func clientConfiguration(connections: Int, streams: Int) -> APNsClientConfiguration {
        let send = APNsEndpoint(host: "127.0.0.1", port: sendPort, caFile: caCertificatePath)
        let management = APNsEndpoint(host: "127.0.0.1", port: managementPort, caFile: caCertificatePath)
        var configuration = APNsClientConfiguration(sendEndpoint: send, managementEndpoint: management)
        configuration.maxConnectionsPerHost = connections
        configuration.maxConcurrentStreams = streams
        configuration.requestTimeout = .seconds(30)
        // A loopback simulator: never through the environment's proxy.
        configuration.proxy = .direct
        return configuration
    }

    /// Throws if the simulator process has ended (something outside killed it, or it crashed):
    /// figures measured against a dead server would be failures, not measurements.
    func checkAlive(during step: String) throws {
        guard let exit = process.poll() else { return }
        throw BenchError("the simulator process ended during \(step) (status \(exit.status)\(exit.status > 128 ? ", signal \(exit.status - 128)" : "")): \(process.standardErrorTail(5))")
    }

    /// Stops the simulator.
    func stop() async { await process.stop() }
}

/// Where the benchmark's own executable lives (it starts itself as the simulator).
enum BenchPaths {
    /// `/proc/self/exe`, resolved.
    static var selfExecutable: String {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    }
}
