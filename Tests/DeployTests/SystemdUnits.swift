import Foundation
import Testing
import TestSupport

/// The systemd units as the package installs them: `systemd-analyze verify` and an offline
/// security review, and the settings they rely on.
enum SystemdUnits {
    static let folder = "/lib/systemd/system"
    /// Unit names to verify (the worker template through an instance of it).
    static let names = ["scorecast.service", "scorecast-api.service", "scorecast-poller.service", "scorecast-worker@8082.service"]
    static let files = ["scorecast.service", "scorecast-api.service", "scorecast-poller.service", "scorecast-worker@.service"]

    /// Settings every unit carries, as `key=value` lines of its [Service] section.
    static let hardening = [
        "NoNewPrivileges=yes", "ProtectSystem=strict", "ReadWritePaths=/var/lib/scorecast", "ProtectHome=yes",
        "PrivateTmp=yes", "PrivateDevices=yes", "CapabilityBoundingSet=", "User=scorecast",
        "EnvironmentFile=/etc/scorecast/scorecast.env", "KillMode=mixed",
    ]

    /// Checks the installed units; `grace` is the built-in SCORECAST_SHUTDOWN_GRACE_SECONDS.
    static func check(shutdownGrace grace: Int, roles: [String]) async throws {
        // systemd-analyze works without systemd running (packages-test.txt installs systemd).
        let verify = try await ExternalTool.run("systemd-analyze", ["verify"] + names)
        #expect(verify.status == 0 && verify.stderr.isEmpty && verify.stdout.isEmpty, "systemd-analyze verify:\n\(verify.stdout)\(verify.stderr)")
        for file in files {
            let path = "\(folder)/\(file)"
            // Exposure 2.5 or lower ("OK"); an unhardened service scores 9.6.
            let security = try await ExternalTool.run("systemd-analyze", ["security", "--offline=yes", "--threshold=25", path])
            #expect(security.status == 0, "\(file): \(security.stdout.split(separator: "\n").last ?? "")")

            let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map(String.init)
            for setting in hardening {
                #expect(lines.contains(setting), "\(file) lacks \(setting)")
            }
            let stop = lines.first { $0.hasPrefix("TimeoutStopSec=") }.flatMap { Int($0.dropFirst("TimeoutStopSec=".count)) }
            #expect((stop ?? 0) > grace, "\(file): TimeoutStopSec must exceed the shutdown grace (\(grace) s)")
            let start = try #require(lines.first { $0.hasPrefix("ExecStart=") }, "\(file) has no ExecStart")
            let words = start.dropFirst("ExecStart=".count).split(separator: " ").map(String.init)
            #expect(words.prefix(2) == ["/usr/bin/scorecast", "serve"], "\(file): \(start)")
            if words.count >= 4 {
                #expect(words[2] == "--roles" && roles.contains(words[3]), "\(file): \(start)")
            }
            // Every unit waits for its process's /readyz: the API's port or the ops port.
            let ready = lines.first { $0.hasPrefix("ExecStartPost=") } ?? ""
            #expect(ready.hasPrefix("ExecStartPost=/usr/lib/scorecast/wait-ready"), "\(file) does not wait for /readyz")
            if words.count > 4 {
                #expect(Array(words[4...]) == ["--ops-port", "%i"] && ready.hasSuffix("wait-ready ops %i"), "\(file): \(start)")
            }
        }
    }
}
