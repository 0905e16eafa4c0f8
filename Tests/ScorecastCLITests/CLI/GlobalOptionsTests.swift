import Foundation
import Testing
@testable import ScorecastCLI

/// `--env-file`, taken out of the command line anywhere before `--`, and did-you-mean for a
/// mistyped global option; `SCORECAST_*` names no setting reads are warned about.
@Suite struct GlobalOptionsTests {
    static func envFile(_ text: String) throws -> String {
        let path = NSTemporaryDirectory() + "scorecast-env-\(UUID().uuidString).env"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test func theEnvFileIsReadAndWinsOverTheInheritedEnvironment() throws {
        let path = try Self.envFile("SCORECAST_DATABASE_URL=postgres://u:p@db/x?sslmode=require&connect_timeout=5\nSCORECAST_LOG_LEVEL=debug\n")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let inherited = ["SCORECAST_LOG_LEVEL": "info", "HOME": "/root"]
        for arguments in [["--env-file", path, "stats", "--json"], ["stats", "--env-file=\(path)", "--json"]] {
            let global = try GlobalOptions(arguments, environment: inherited)
            #expect(global.arguments == ["stats", "--json"])
            #expect(global.environment["SCORECAST_DATABASE_URL"] == "postgres://u:p@db/x?sslmode=require&connect_timeout=5")
            #expect(global.environment["SCORECAST_LOG_LEVEL"] == "debug")
            #expect(global.environment["HOME"] == "/root")
        }
        let raw = try GlobalOptions(["events", "send", "--", "--env-file", "x"], environment: [:])
        #expect(raw.arguments == ["events", "send", "--", "--env-file", "x"], "nothing after -- is a global option")
    }

    @Test func mistakesAreNamed() {
        #expect(throws: (any Error).self) { try GlobalOptions(["--env-file"], environment: [:]) }
        #expect(throws: (any Error).self) { try GlobalOptions(["--env-file", "/nonexistent.env", "stats"], environment: [:]) }
        do {
            _ = try GlobalOptions(["--verison"], environment: [:])
            Issue.record("--verison was accepted")
        } catch {
            #expect(ErrorMapping.commandError(for: error).message == "unknown option --verison (did you mean '--version'?)")
        }
        do {
            _ = try GlobalOptions(["--env-flie=x", "stats"], environment: [:])
            Issue.record("--env-flie was accepted")
        } catch {
            #expect(ErrorMapping.commandError(for: error).message == "unknown option --env-flie (did you mean '--env-file'?)")
        }
    }

    @Test func unknownScorecastVariablesAreWarnedAboutWithTheClosestName() {
        let warnings = UnknownVariables.warnings([
            "SCORECAST_HTTP_PROT": "8080", "SCORECAST_HTTP_PORT": "8080", "SCORECAST_API_KEY": "k", "SCORECAST_TEST_DATABASE_URL": "x",
            "SCORECAST_ZZZZZZZZZZZZZZZZZZZZZZZZ": "1", "PATH": "/bin",
        ])
        #expect(warnings == [
            "scorecast: warning: SCORECAST_HTTP_PROT is not a scorecast setting and is ignored (did you mean 'SCORECAST_HTTP_PORT'?) (see scorecast config)",
            "scorecast: warning: SCORECAST_ZZZZZZZZZZZZZZZZZZZZZZZZ is not a scorecast setting and is ignored (see scorecast config)",
        ])
    }
}
