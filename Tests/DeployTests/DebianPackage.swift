import Foundation
import Synchronization
import TestSupport

/// The Debian package `Deploy/package.sh --build debug` makes from the debug build, built once
/// per test process (no test compiles a release build), and the system-wide commands that
/// install and remove it.
enum DebianPackage {
    /// Paths the package installs or its maintainer scripts make.
    static let binary = URL(fileURLWithPath: "/usr/bin/scorecast")
    static let environmentFile = "/etc/scorecast/scorecast.env"
    static let stateFolder = "/var/lib/scorecast"

    private static let built = Mutex<Task<URL, Error>?>(nil)

    /// The `.deb`, built on first use into a folder of its own.
    static func debug() async throws -> URL {
        let task = built.withLock { task in
            if let task { return task }
            let started = Task { try await build() }
            task = started
            return started
        }
        return try await task.value
    }

    /// Where this process's package is built; removed when the process exits.
    private static func outputFolder() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("scorecast-deb-\(getpid())")
    }

    private static func build() async throws -> URL {
        let output = outputFolder()
        try FileManager.default.createDirectory(at: output, withIntermediateDirectories: true)
        atexit { try? FileManager.default.removeItem(at: DebianPackage.outputFolder()) }
        let result = try await ExternalTool.run(
            ExternalTool.packageRoot.appendingPathComponent("Deploy/package.sh").path,
            ["--build", "debug", "--output", output.path], timeout: .seconds(180))
        guard result.status == 0 else {
            throw TestSupportError("Deploy/package.sh failed (\(result.status)):\n\(result.stderr)")
        }
        let path = result.stdout.split(separator: "\n").last.map(String.init) ?? ""
        guard path.hasSuffix(".deb"), FileManager.default.fileExists(atPath: path) else {
            throw TestSupportError("Deploy/package.sh printed no package: \(result.stdout)\n\(result.stderr)")
        }
        return URL(fileURLWithPath: path)
    }

    /// A control field of the package (`Depends`, `Version`…).
    static func field(_ name: String, of deb: URL) async throws -> String {
        try await run("dpkg-deb", ["--field", deb.path, name]).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The package names of a `Depends:` value, versions dropped.
    static func packageNames(_ depends: String) -> Set<String> {
        Set(depends.split(separator: ",").compactMap { $0.split(separator: " ").first.map(String.init) })
    }

    /// Whether dpkg knows the package as installed, or removed with its configuration left.
    static func dpkgStatus() async throws -> String? {
        let result = try await ExternalTool.run("dpkg-query", ["--show", "--showformat=${Status}", "scorecast"])
        return result.status == 0 ? result.stdout : nil
    }

    /// Runs `dpkg arguments…`, waiting while another dpkg or apt holds dpkg's lock (other
    /// checkouts' setup may be installing packages on the same machine).
    @discardableResult
    static func dpkg(_ arguments: [String], lockWait: Duration = .seconds(300)) async throws -> String {
        let deadline = ContinuousClock.now + lockWait
        while true {
            let result = try await ExternalTool.run("dpkg", arguments, timeout: .seconds(180))
            if result.status == 0 { return result.stdout }
            guard result.stderr.contains("frontend lock") || result.stderr.contains("/var/lib/dpkg/lock"), ContinuousClock.now < deadline else {
                throw TestSupportError("dpkg \(arguments.joined(separator: " ")) failed (\(result.status)):\n\(result.stdout)\n\(result.stderr)")
            }
            try await Task.sleep(for: .seconds(1))
        }
    }

    /// Runs a tool; its standard output, or a failure naming the command and its errors.
    @discardableResult
    static func run(_ tool: String, _ arguments: [String], timeout: Duration = .seconds(120)) async throws -> String {
        let result = try await ExternalTool.run(tool, arguments, timeout: timeout)
        guard result.status == 0 else {
            throw TestSupportError("\(tool) \(arguments.joined(separator: " ")) failed (\(result.status)):\n\(result.stdout)\n\(result.stderr)")
        }
        return result.stdout
    }
}
