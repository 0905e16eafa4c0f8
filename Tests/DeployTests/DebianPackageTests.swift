import Foundation
import Postgres
import Testing
import TestSupport

/// The Debian package, installed into this machine with dpkg (tests and CI run as root): its
/// systemd units verify, it runs from its installed paths against a real Postgres, its readiness
/// check waits for a ready API, and a purge leaves nothing behind.
@Suite struct DebianPackageTests {
    @Test func installsVerifiesUnitsServesAndPurgesCleanly() async throws {
        let lock = try await SystemInstallLock.acquire()
        defer { withExtendedLifetime(lock) {} }
        let deb = try await DebianPackage.debug()
        let files = try await packagedFiles(deb)
        #expect(files.contains("/usr/bin/scorecast"))
        #expect(files.contains("/usr/share/man/man1/scorecast.1.gz"))
        #expect(files.contains("/usr/lib/scorecast/wait-ready"))
        #expect(Set(SystemdUnits.files.map { "\(SystemdUnits.folder)/\($0)" }).isSubset(of: files))

        if try await DebianPackage.dpkgStatus() != nil {
            // A run that died before its purge: start from a machine without the package.
            try await DebianPackage.dpkg(["--purge", "scorecast"])
        }
        try await DebianPackage.dpkg(["--install", deb.path])
        do {
            try await checkInstalledLayout()
            let settings = try await installedSettings()
            let grace = try #require(settings.first { $0.name == "SCORECAST_SHUTDOWN_GRACE_SECONDS" }.flatMap { Int($0.defaultValue) })
            let roles = try #require(settings.first { $0.name == "SCORECAST_ROLES" }?.defaultValue.split(separator: ",").map(String.init))
            try await SystemdUnits.check(shutdownGrace: grace, roles: roles)
            try await reinstallKeepsTheEditedEnvironment(deb)
            try await runFromInstalledPaths()
        } catch {
            _ = try? await DebianPackage.dpkg(["--purge", "scorecast"])
            throw error
        }

        // Remove keeps the configuration (a conffile), purge takes everything.
        try await DebianPackage.dpkg(["--remove", "scorecast"])
        #expect(!FileManager.default.fileExists(atPath: DebianPackage.binary.path))
        #expect(FileManager.default.fileExists(atPath: DebianPackage.environmentFile))
        try await DebianPackage.dpkg(["--purge", "scorecast"])
        #expect(try await DebianPackage.dpkgStatus() == nil)
        for path in files + ["/etc/scorecast", "/usr/lib/scorecast", "/usr/share/doc/scorecast", DebianPackage.stateFolder] {
            #expect(!FileManager.default.fileExists(atPath: path), "left after purge: \(path)")
        }
        #expect(try await ExternalTool.run("getent", ["passwd", "scorecast"]).status != 0, "the scorecast user outlived the purge")
        #expect(try await ExternalTool.run("getent", ["group", "scorecast"]).status != 0, "the scorecast group outlived the purge")
    }

    /// The files the package holds (its folders are checked by name: others, like /usr, are shared).
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

    /// Installing again (as an upgrade does) keeps the admin's edits of the environment file,
    /// and its mode and group, and makes no second user.
    private func reinstallKeepsTheEditedEnvironment(_ deb: URL) async throws {
        let edited = try String(contentsOfFile: DebianPackage.environmentFile, encoding: .utf8) + "SCORECAST_LOG_LEVEL=debug\n"
        try edited.write(toFile: DebianPackage.environmentFile, atomically: true, encoding: .utf8)
        try await DebianPackage.dpkg(["--install", "--force-confold", deb.path])
        #expect(try String(contentsOfFile: DebianPackage.environmentFile, encoding: .utf8) == edited)
        #expect(try await DebianPackage.run("stat", ["-c", "%U:%G %a", DebianPackage.environmentFile]) == "root:scorecast 640\n")
        let users = try await DebianPackage.run("getent", ["passwd"]).split(separator: "\n").filter { $0.hasPrefix("scorecast:") }
        #expect(users.count == 1)
    }

    /// `serve --roles api` (what scorecast-api.service runs) on an unmigrated schema is alive but
    /// not ready, and the units' readiness check waits until `migrate` makes it ready. Then the
    /// whole `serve`, stopped by SIGTERM as systemd stops it.
    private func runFromInstalledPaths() async throws {
        let database = try await TestDatabase.shared().makeSchema()
        let environment = [
            "SCORECAST_DATABASE_URL": database.testConnectionString,
            "SCORECAST_STATE_DIR": DebianPackage.stateFolder,
            "SCORECAST_HTTP_PORT": "0",
        ]
        // Run where the units run, away from the checkout: the migrations must come from the binary.
        let home = URL(fileURLWithPath: DebianPackage.stateFolder)
        var apiEnvironment = environment
        apiEnvironment["SCORECAST_AUTO_MIGRATE"] = "false"
        let api = try ScorecastProcess(["serve", "--roles", "api"], environment: apiEnvironment, workingDirectory: home, executable: DebianPackage.binary)
        let apiBase = try await baseURL(api)
        #expect(try await TestClient.live(apiBase).get("/healthz").status == 200)
        #expect(try await TestClient.live(apiBase).get("/readyz").status == 503)
        let port = try #require(apiBase.split(separator: ":").last.map(String.init))
        let waitReady = Task {
            try await ExternalTool.run("env", ["SCORECAST_HTTP_PORT=\(port)", "/usr/lib/scorecast/wait-ready", "api"], timeout: .seconds(120))
        }
        // A process without the API waits on its ops port (here the API's, which answers /readyz
        // alike; the HTTP port points nowhere, so only the ops port can make it return).
        let withoutAPI = Task {
            try await ExternalTool.run(
                "env", ["SCORECAST_ROLES=worker,poller", "SCORECAST_HTTP_PORT=1", "SCORECAST_OPS_PORT=\(port)", "/usr/lib/scorecast/wait-ready"],
                timeout: .seconds(120))
        }
        let migrate = try ScorecastProcess(["migrate"], environment: environment, workingDirectory: home, executable: DebianPackage.binary)
        #expect(await migrate.waitForExit(timeout: .seconds(60)) == 0, "\(migrate.errorOutput)")
        #expect(migrate.output.contains("applied: 0001"), "\(migrate.output)")
        let waited = try await waitReady.value
        #expect(waited.status == 0 && waited.stdout.contains("/readyz answers 200"), "\(waited.stdout)\(waited.stderr)")
        let waitedWithoutAPI = try await withoutAPI.value
        #expect(waitedWithoutAPI.status == 0 && waitedWithoutAPI.stdout.contains(":\(port)/readyz answers 200"),
                "\(waitedWithoutAPI.stdout)\(waitedWithoutAPI.stderr)")
        let ready = try await TestClient.live(apiBase).get("/readyz")
        #expect(ready.status == 200, "\(String(decoding: ready.body, as: UTF8.self))")
        let readiness = try jsonObject(ready.body)
        #expect(readiness["status"] as? String == "ready")
        #expect(readiness["migrations"] as? Int == migrationCount(migrate.output))
        let schemaFiles = try FileManager.default.contentsOfDirectory(atPath: ScorecastProcess.schemaFolder.path)
        #expect(migrationCount(migrate.output) == schemaFiles.filter { $0.hasSuffix(".sql") }.count, "every migration of Sources/Migrations/Schema/ is built in")
        api.signal(SIGTERM)
        #expect(await api.waitForExit(timeout: .seconds(30)) == 0, "\(api.errorOutput)")

        let serve = try ScorecastProcess(["serve"], environment: environment, workingDirectory: home, executable: DebianPackage.binary)
        let base = try await baseURL(serve)
        #expect(try await TestClient.live(base).get("/readyz").status == 200)
        serve.signal(SIGTERM)
        #expect(await serve.waitForExit(timeout: .seconds(30)) == 0, "\(serve.errorOutput)")
    }

    /// The API's address, from the line `serve` logs when it listens.
    private func baseURL(_ process: ScorecastProcess) async throws -> String {
        let line = try await process.waitForLine(containing: "HTTP API listening", timeout: .seconds(60))
        return try #require(line.firstMatch(of: /http:\/\/127\.0\.0\.1:[0-9]+/).map { String($0.output) }, "\(line)")
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
