import Foundation
import Postgres
import Testing
import TestSupport

/// The Debian package, installed into this machine with dpkg (tests and CI run as root): it runs
/// from its installed paths against a real Postgres, and a purge leaves nothing behind.
@Suite struct DebianPackageTests {
    @Test func installsMigratesServesAndPurgesCleanly() async throws {
        let lock = try await SystemInstallLock.acquire()
        defer { withExtendedLifetime(lock) {} }
        let deb = try await DebianPackage.debug()
        let files = try await packagedFiles(deb)
        #expect(files.contains("/usr/bin/scorecast"))
        #expect(files.contains("/usr/share/man/man1/scorecast.1.gz"))

        if try await DebianPackage.dpkgStatus() != nil {
            // A run that died before its purge: start from a machine without the package.
            try await DebianPackage.run("dpkg", ["--purge", "scorecast"])
        }
        try await DebianPackage.run("dpkg", ["--install", deb.path])
        do {
            try await checkInstalledLayout()
            try await runFromInstalledPaths()
        } catch {
            _ = try? await DebianPackage.run("dpkg", ["--purge", "scorecast"])
            throw error
        }

        // Remove keeps the configuration (a conffile), purge takes everything.
        try await DebianPackage.run("dpkg", ["--remove", "scorecast"])
        #expect(!FileManager.default.fileExists(atPath: DebianPackage.binary.path))
        #expect(FileManager.default.fileExists(atPath: DebianPackage.environmentFile))
        try await DebianPackage.run("dpkg", ["--purge", "scorecast"])
        #expect(try await DebianPackage.dpkgStatus() == nil)
        for path in files + ["/etc/scorecast", DebianPackage.stateFolder] {
            #expect(!FileManager.default.fileExists(atPath: path), "left after purge: \(path)")
        }
        #expect(try await ExternalTool.run("getent", ["passwd", "scorecast"]).status != 0, "the scorecast user outlived the purge")
        #expect(try await ExternalTool.run("getent", ["group", "scorecast"]).status != 0, "the scorecast group outlived the purge")
    }

    /// The files and folders the package itself holds (not the folders it shares, like /usr).
    private func packagedFiles(_ deb: URL) async throws -> [String] {
        let listing = try await DebianPackage.run("dpkg-deb", ["--contents", deb.path])
        return listing.split(separator: "\n").compactMap { line -> String? in
            guard let path = line.split(separator: " ").last, !path.hasSuffix("/") else { return nil }
            return String(path.dropFirst())  // "./usr/bin/scorecast" → "/usr/bin/scorecast"
        }
    }

    /// The user, the state folder and the environment file as the maintainer scripts leave them.
    private func checkInstalledLayout() async throws {
        let user = try await DebianPackage.run("getent", ["passwd", "scorecast"])
        let fields = user.trimmingCharacters(in: .newlines).split(separator: ":", omittingEmptySubsequences: false)
        #expect(fields.count == 7 && Int(fields[2]).map { $0 < 1000 } == true, "not a system user: \(user)")
        #expect(fields.last == "/usr/sbin/nologin")

        #expect(try await DebianPackage.run("stat", ["-c", "%U:%G %a", DebianPackage.stateFolder]) == "scorecast:scorecast 750\n")
        #expect(try await DebianPackage.run("stat", ["-c", "%U:%G %a", DebianPackage.environmentFile]) == "root:scorecast 640\n")
        #expect(try await DebianPackage.run("dpkg-query", ["--control-show", "scorecast", "conffiles"]).contains(DebianPackage.environmentFile))

        // The environment file lists every setting of the installed binary, in its order.
        let settings = try await installedSettings()
        let environment = try String(contentsOfFile: DebianPackage.environmentFile, encoding: .utf8)
        let listed = environment.split(separator: "\n").compactMap { line -> String? in
            let assignment = line.hasPrefix("#") ? line.dropFirst() : line[...]
            guard assignment.hasPrefix("SCORECAST_"), let equals = assignment.firstIndex(of: "=") else { return nil }
            return String(assignment[..<equals])
        }
        #expect(listed == settings.map(\.name))
        #expect(environment.contains("\nSCORECAST_STATE_DIR=/var/lib/scorecast\n"))

        let version = try await DebianPackage.run(DebianPackage.binary.path, ["--version"])
        #expect(version.hasPrefix("scorecast "))
    }

    /// `migrate`, then `serve` (without its own migration) until `/readyz` says ready, then SIGTERM.
    private func runFromInstalledPaths() async throws {
        let database = try await TestDatabase.shared().makeSchema()
        let environment = [
            "SCORECAST_DATABASE_URL": database.testConnectionString,
            "SCORECAST_STATE_DIR": DebianPackage.stateFolder,
            "SCORECAST_HTTP_PORT": "0",
        ]
        let migrate = try ScorecastProcess(["migrate"], environment: environment, executable: DebianPackage.binary)
        #expect(await migrate.waitForExit(timeout: .seconds(60)) == 0, "\(migrate.errorOutput)")
        #expect(migrate.output.contains("applied: 0001"), "\(migrate.output)")

        var serveEnvironment = environment
        serveEnvironment["SCORECAST_AUTO_MIGRATE"] = "false"
        let serve = try ScorecastProcess(["serve"], environment: serveEnvironment, executable: DebianPackage.binary)
        let line = try await serve.waitForLine(containing: "HTTP API listening", timeout: .seconds(60))
        let base = try #require(line.firstMatch(of: /http:\/\/127\.0\.0\.1:[0-9]+/).map { String($0.output) }, "\(line)")

        let ready = try await TestHTTP.get(base + "/readyz")
        #expect(ready.status == 200, "\(String(decoding: ready.body, as: UTF8.self))")
        let readiness = try TestHTTP.object(ready.body)
        #expect(readiness["status"] as? String == "ready")
        #expect(readiness["migrations"] as? Int == migrationCount(migrate.output))
        #expect(try await TestHTTP.get(base + "/healthz").status == 200)

        serve.signal(SIGTERM)
        #expect(await serve.waitForExit(timeout: .seconds(30)) == 0, "\(serve.errorOutput)")
    }

    /// How many migrations `migrate` printed as applied.
    private func migrationCount(_ output: String) -> Int {
        guard let list = output.split(separator: "\n").first(where: { $0.hasPrefix("applied: ") }) else { return -1 }
        return list.dropFirst("applied: ".count).split(separator: ",").count
    }

    /// The settings `scorecast config --json` of the installed binary lists.
    private func installedSettings() async throws -> [(name: String, defaultValue: String)] {
        let json = try await DebianPackage.run("env", ["-i", DebianPackage.binary.path, "config", "--json"])
        let rows = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [[String: Any]])
        return rows.compactMap { row in
            guard let name = row["name"] as? String, let value = row["defaultValue"] as? String else { return nil }
            return (name, value)
        }
    }
}
