import EndToEndSupport
import Foundation
import Glibc
import Postgres
import Testing
import TestSupport

/// `scorecast serve` as a user runs it: the built binary, real signals, a real Postgres.
@Suite(.serialized) struct ServeTests {
    /// The port from the "HTTP API listening" log line.
    func port(of process: ScorecastProcess) async throws -> Int {
        let line = try await process.waitForLine(containing: "HTTP API listening", timeout: .seconds(60))
        guard let range = line.range(of: #"127\.0\.0\.1:(\d+)"#, options: .regularExpression),
              let port = Int(line[range].split(separator: ":").last ?? "")
        else { throw TestSupportError("no port in: \(line)") }
        return port
    }

    @Test func embeddedDefaultsServeReadyThenStopCleanlyOnSIGTERM() async throws {
        let folder = try TemporaryFolder("scorecast-serve")
        defer { folder.remove() }
        let serve = try ScorecastProcess(
            ["serve", "--roles", "api"], environment: ["SCORECAST_HTTP_PORT": "0"], workingDirectory: folder.url)
        let port = try await port(of: serve)

        let health = try await TestClient.live(port: port).get("/healthz")
        #expect(health.status == 200)
        let ready = try await TestClient.live(port: port).get("/readyz")
        #expect(ready.status == 200, "readyz: \(String(decoding: ready.body, as: UTF8.self))")

        let postgresPIDs = try await embeddedPostmasterPIDs(under: folder.url)
        #expect(!postgresPIDs.isEmpty)

        serve.signal(SIGTERM)
        let code = await serve.waitForExit(timeout: hangDeadline)
        #expect(code == 0, "stderr:\n\(serve.errorOutput)")
        // Every service stopped on the signal, none had to be cancelled at the end of its grace
        // (what a wall-clock bound of 5 s stood for).
        #expect(!serve.errorOutput.contains("did not stop in time"), "stderr:\n\(serve.errorOutput)")
        for pid in postgresPIDs { #expect(!isAlive(pid), "postgres \(pid) is still running; serve said:\n\(serve.errorOutput)") }
    }

    @Test func aCopyOfTheBinaryOnPATHServesFromAnyFolderWithItsBuiltInMigrations() async throws {
        let bin = try TemporaryFolder("scorecast-bin")
        let work = try TemporaryFolder("scorecast-elsewhere")
        defer {
            bin.remove()
            work.remove()
        }
        // No Schema/ beside or above this copy, nor in the working folder.
        let copy = bin.url.appendingPathComponent("scorecast")
        // Copied by cp, not in this process: a child forked here meanwhile by a concurrent test
        // would inherit the open file and make running the copy fail with "Text file busy".
        try await Shell.run("cp '\(try ScorecastProcess.binary().path)' '\(copy.path)'")
        let path = bin.url.path + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
        let serve = try ScorecastProcess(
            ["serve", "--roles", "api"], environment: ["SCORECAST_HTTP_PORT": "0", "PATH": path], workingDirectory: work.url,
            executable: copy)
        let port = try await port(of: serve)
        let ready = try await TestClient.live(port: port).get("/readyz")
        #expect(ready.status == 200, "\(String(decoding: ready.body, as: UTF8.self))\n\(serve.errorOutput)")
        let migrations = try jsonObject(ready.body)["migrations"] as? Int
        let schemaFiles = try FileManager.default.contentsOfDirectory(atPath: ScorecastProcess.schemaFolder.path)
        #expect(migrations == schemaFiles.filter { $0.hasSuffix(".sql") }.count)
        serve.signal(SIGTERM)
        #expect(await serve.waitForExit() == 0, "\(serve.errorOutput)")
    }

    @Test func theBuiltInSimulatorKeepsItsChannelsAcrossARestartOfServe() async throws {
        let folder = try TemporaryFolder("scorecast-restart")
        defer { folder.remove() }
        let environment = ["SCORECAST_STATE_DIR": folder.url.appendingPathComponent(".scorecast").path, "SCORECAST_HTTP_PORT": "0"]
        func cli(_ arguments: String...) async throws -> String {
            let result = try await ScorecastProcess.run(arguments, environment: environment)
            guard result.code == 0 else { throw TestSupportError("scorecast \(arguments.joined(separator: " ")): \(result.stderr)") }
            return result.stdout
        }
        var serve = try ScorecastProcess(["serve"], environment: environment)
        _ = try await port(of: serve)
        _ = try await cli("apps", "add", "--bundle-id", "com.example.scores", "--environment", "sandbox", "--generate-key")
        _ = try await cli("games", "add", "--id", "ars-che", "--league", "EPL", "--home", "Arsenal", "--away", "Chelsea", "--starts-at", "2026-11-29T20:00:00Z")
        let created = try jsonObject(Array(try await cli("channels", "create", "--game", "ars-che", "--app", "com.example.scores", "--json").utf8))
        let channelID = try #require(created["channelId"] as? String)
        serve.signal(SIGTERM)
        #expect(await serve.waitForExit() == 0, "\(serve.errorOutput)")

        serve = try ScorecastProcess(["serve"], environment: environment)
        _ = try await port(of: serve)
        #expect(!serve.errorOutput.contains("no teams registered"), "a false alarm at start: \(serve.errorOutput)")
        let listed = try #require(try JSONSerialization.jsonObject(with: Data(try await cli("channels", "list", "--json").utf8)) as? [[String: Any]])
        #expect(listed.map { $0["channelId"] as? String } == [channelID])
        #expect(listed.map { $0["status"] as? String } == ["active"])
        let reports = try #require(try JSONSerialization.jsonObject(with: Data(try await cli("channels", "reconcile", "--json").utf8)) as? [[String: Any]])
        #expect(reports.first?["clean"] as? Bool == true, "the simulator forgot the channel: \(reports)")
        serve.signal(SIGTERM)
        #expect(await serve.waitForExit() == 0, "\(serve.errorOutput)")
    }

    @Test func readyzTurns503WhenTheDatabaseStops() async throws {
        let folder = try TemporaryFolder("scorecast-ready")
        defer { folder.remove() }
        let serve = try ScorecastProcess(
            ["serve", "--roles", "api"], environment: ["SCORECAST_HTTP_PORT": "0"], workingDirectory: folder.url)
        let port = try await port(of: serve)
        #expect(try await TestClient.live(port: port).get("/readyz").status == 200)

        for pid in try await embeddedPostmasterPIDs(under: folder.url) { kill(pid, SIGINT) }  // fast shutdown
        var body = ""
        // However long the postmaster takes to stop on a loaded machine (a 10 s bound was a margin).
        try await eventually("readyz answers 503 once the database is gone", every: .milliseconds(100)) {
            let answer = try await TestClient.live(port: port).get("/readyz")
            body = String(decoding: answer.body, as: UTF8.self)
            return answer.status == 503
        }
        #expect(body.contains("database unavailable"))
        #expect(try await TestClient.live(port: port).get("/healthz").status == 200)
        serve.signal(SIGTERM)
        #expect(await serve.waitForExit() == 0)
    }

    @Test func anInvalidSettingStopsStartWithTheVariableNamed() async throws {
        let result = try await ScorecastProcess.run(["serve"], environment: ["SCORECAST_HTTP_PORT": "http"])
        #expect(result.code == 2)
        #expect(result.stderr.contains("SCORECAST_HTTP_PORT must be a whole number"))
    }

    @Test func helpAndUnknownCommands() async throws {
        let help = try await ScorecastProcess.run(["--help"])
        #expect(help.code == 0)
        #expect(help.stdout.contains("serve"))
        #expect(help.stdout.contains("Exit codes"))
        let serveHelp = try await ScorecastProcess.run(["serve", "--help"])
        #expect(serveHelp.code == 0 && serveHelp.stdout.contains("--roles"))
        let unknown = try await ScorecastProcess.run(["frobnicate"])
        #expect(unknown.code == 2)
    }

    @Test func versionHelpNounsSuggestionsAndStrayArguments() async throws {
        let version = try await ScorecastProcess.run(["--version"])
        #expect(version.code == 0 && version.stdout.hasPrefix("scorecast ") && version.stdout.contains("schema "), "\(version.stdout)")
        let helpGames = try await ScorecastProcess.run(["help", "games"])
        #expect(helpGames.code == 0 && helpGames.stdout.contains("games add") && helpGames.stdout.contains("games show"))
        let helpResume = try await ScorecastProcess.run(["help", "apps", "resume"])
        #expect(helpResume.code == 0 && helpResume.stdout.contains("usage: scorecast apps resume"))
        let typo = try await ScorecastProcess.run(["chanels", "list"])
        #expect(typo.code == 2 && typo.stderr.contains("did you mean 'channels list'?"), "\(typo.stderr)")
        let option = try await ScorecastProcess.run(["games", "list", "--jsn"])
        #expect(option.code == 2 && option.stderr.contains("did you mean '--json'?"), "\(option.stderr)")
        let stray = try await ScorecastProcess.run(["games", "list", "today"])
        #expect(stray.code == 2 && stray.stderr.contains("unexpected argument 'today'"), "\(stray.stderr)")
        let extra = try await ScorecastProcess.run(["games", "show", "a", "b"])
        #expect(extra.code == 2 && extra.stderr.contains("unexpected argument 'b'"), "\(extra.stderr)")
    }

    @Test func aBusyPortIsNamedWithTheSettingToChange() async throws {
        // Hold a port the way another server would.
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket, $0, length) == 0 && listen(socket, 1) == 0 && getsockname(socket, $0, &length) == 0 }
        }
        #expect(bound)
        let port = Int(UInt16(bigEndian: address.sin_port))
        let folder = try TemporaryFolder("scorecast-busy")
        defer { folder.remove() }
        let serve = try ScorecastProcess(["serve", "--roles", "api"], environment: ["SCORECAST_HTTP_PORT": String(port)], workingDirectory: folder.url)
        let code = await serve.waitForExit(timeout: .seconds(60))
        #expect(code == 1, "\(serve.errorOutput)")
        #expect(serve.errorOutput.contains("cannot listen on 127.0.0.1:\(port)") && serve.errorOutput.contains("SCORECAST_HTTP_PORT"),
                "\(serve.errorOutput)")
        #expect(!serve.errorOutput.contains("startFailed"), "\(serve.errorOutput)")
    }

    @Test func migrateAgainstAGivenDatabaseThenStatus() async throws {
        let schema = try await TestDatabase.shared().makeSchema()
        let environment = ["SCORECAST_DATABASE_URL": schema.testConnectionString]
        let first = try await ScorecastProcess.run(["migrate"], environment: environment)
        #expect(first.code == 0, "stderr: \(first.stderr)")
        #expect(first.stdout.contains("applied: 0001_initial.sql"))
        let again = try await ScorecastProcess.run(["migrate"], environment: environment)
        #expect(again.stdout.contains("schema is up to date"))
        let status = try await ScorecastProcess.run(["migrate", "--status", "--json"], environment: environment)
        let object = try jsonObject(Array(status.stdout.utf8))
        #expect((object["pending"] as? [String]) == [])
    }

    @Test func anUnreachableDatabaseExitsWithCode5() async throws {
        let result = try await ScorecastProcess.run(
            ["migrate"], environment: ["SCORECAST_DATABASE_URL": "host=127.0.0.1 port=1 dbname=x connect_timeout=2"])
        #expect(result.code == 5, "stderr: \(result.stderr)")
    }

    /// Postmaster pids of embedded clusters whose data lives under `folder` (or whose
    /// postmaster.pid the state folder points at).
    func embeddedPostmasterPIDs(under folder: URL) async throws -> [Int32] {
        let output = try await ExternalTool.run("sh", ["-c", "ps -eo pid=,args= | grep '[p]ostgres -D' || true"]).stdout
        return output.split(separator: "\n").compactMap { line -> Int32? in
            let parts = line.split(separator: " ", maxSplits: 1)
            guard parts.count == 2, parts[1].contains(folder.lastPathComponent) else { return nil }
            return Int32(parts[0])
        }
    }

    /// Whether `pid` is a live process. A zombie counts as gone: the test runner may adopt
    /// orphans as a subreaper without ever reaping them.
    func isAlive(_ pid: Int32) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")")
        else { return false }
        let state = stat[stat.index(close, offsetBy: 2)]
        return state != "Z" && state != "X"
    }
}
