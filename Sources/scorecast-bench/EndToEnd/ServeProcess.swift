import ChildProcesses
import CurlHTTP
import Foundation
import ServiceBase

/// `scorecast serve` as a real process (release build), started with the run's settings.
struct ServeProcess: Sendable {
    /// The process.
    let process: ChildProcess
    /// Its HTTP port (0 for a worker-only process).
    let httpPort: Int
    /// The roles it runs.
    let roles: String
    /// The operator token its `/metrics` asks for (`SCORECAST_OPS_TOKEN`), if one is set.
    var opsToken: String?

    /// Starts `serve` and, when it runs the API, waits until `/readyz` answers 200.
    static func start(environment: EndToEndEnvironment, roles: String, label: String,
                      extraEnvironment: [String: String]) async throws -> ServeProcess {
        let port = roles.contains("api") ? try FreePort.pick() : 0
        let settings = environment.serveEnvironment(httpPort: port, roles: roles, extra: extraEnvironment)
        let process = try ChildProcess(
            name: label, executable: environment.scorecast, arguments: ["serve", "--roles", roles],
            environment: settings,
            stdoutPath: environment.folder + "/\(label).out", stderrPath: environment.folder + "/\(label).log")
        let serve = ServeProcess(process: process, httpPort: port, roles: roles, opsToken: settings[Setting.opsToken.name])
        let deadline = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < deadline {
            if let exit = process.poll() {
                throw BenchError("scorecast serve (\(roles)) exited with \(exit.status):\n\(process.standardErrorTail())")
            }
            if port == 0 {
                // A worker-only process has no HTTP port: give it a moment to connect and listen.
                try await Task.sleep(for: .seconds(1))
                return serve
            }
            if let answer = try? await CurlHTTPConnection.perform(CurlHTTPRequest(method: "GET", url: "http://127.0.0.1:\(port)/readyz"),
                                                                  timeout: .seconds(2)),
               answer.status == 200 {
                return serve
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        await process.stop()
        throw BenchError("scorecast serve (\(roles)) was not ready within 60 s:\n\(process.standardErrorTail())")
    }

    /// Stops it with SIGTERM (graceful), killing it after the grace period.
    func stop() async { await process.stop(grace: .seconds(20)) }
}

/// A free loopback TCP port, found by binding port 0.
enum FreePort {
    /// Picks a port the system considers free now.
    static func pick() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw BenchError("socket(): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(fd, pointer, length) == 0 && getsockname(fd, pointer, &length) == 0
            }
        }
        guard bound else { throw BenchError("cannot find a free port: \(String(cString: strerror(errno)))") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
