import EndToEndSupport
import Foundation
import TestSupport
import Testing

/// What the built `scorecast` prints for each command's mistakes, and the exit code it ends
/// with: the exact line on standard error, naming what is wrong. (`CommandLineTests` checks the
/// parsing itself; this is the binary a user runs.)
@Suite("The commands' messages, through the built binary")
struct CommandMessagesTests {
    /// `scorecast arguments` exits with `code` and says `message` (and nothing else) on stderr.
    typealias Case = (arguments: [String], code: Int32, message: String)

    /// A database nobody listens on: an argument checked before the database is opened is
    /// refused the same with or without one (exit 2 or 3, never 5).
    static func unreachableDatabase() throws -> [String: String] {
        ["SCORECAST_DATABASE_URL": "postgres://scorecast@127.0.0.1:\(try FreePort.find())/none?connect_timeout=5",
         "SCORECAST_STATE_DIR": try TemporaryFolder("command-messages").path]
    }

    static func expect(_ cases: [Case], _ run: ([String]) async throws -> (code: Int32, stdout: String, stderr: String)) async throws {
        for item in cases {
            let result = try await run(item.arguments)
            let label = "scorecast " + item.arguments.joined(separator: " ")
            #expect(result.code == item.code, "\(label): exit \(result.code)\n\(result.stderr)")
            #expect(result.stderr == item.message + "\n", "\(label)")
        }
    }

    @Test func argumentsAreCheckedBeforeTheDatabaseIsOpened() async throws {
        let environment = try Self.unreachableDatabase()
        try await Self.expect([
            (["chanels", "list"], 2, "scorecast: unknown command 'chanels list' (did you mean 'channels list'?) (see scorecast --help)"),
            (["games", "frob"], 2,
             "scorecast: unknown command 'games frob' (games takes: add, list, show, start-activities, light-channel) (see scorecast --help)"),
            (["help", "games", "frob"], 2,
             "scorecast help: no command 'games frob' (games takes: add, list, show, start-activities, light-channel) (see scorecast --help)"),
            (["demo", "--speed", "0"], 2, #"scorecast demo: --speed must be a whole number from 1 to 3600, got "0""#),
            (["serve", "--roles", "api,cook"], 2,
             "scorecast serve: invalid configuration:\n  - SCORECAST_ROLES must be a comma-separated list of api, worker, poller, got \"api,cook\""),
            (["migrate", "--status", "extra"], 2, "scorecast migrate: unexpected argument 'extra': this command takes options only (see --help)"),
            (["keys", "create", "--name", "bad name"], 2, "scorecast keys create: --name: a key name is 1 to 64 of A-Z a-z 0-9 . _ -"),
            (["keys", "create"], 2, "scorecast keys create: missing --name NAME"),
            (["keys", "revoke", "bad name"], 3, "scorecast keys revoke: no API key named bad name"),
            (["events", "send", "--key", "k"], 2, "scorecast events send: pass exactly one of --file PATH and --json EVENT"),
            (["events", "send", "--key", "k", "--json", "{}", "--url", "ftp://x"], 2,
             "scorecast events send: --url must be an http:// or https:// URL, got ftp://x"),
            (["apps", "add", "--bundle-id", "scores", "--environment", "sandbox"], 2,
             #"scorecast apps add: --bundle-id "scores" needs at least two dot-separated parts, like com.example.scores"#),
            (["apps", "add", "--bundle-id", "com.example.x", "--environment", "staging"], 2,
             #"scorecast apps add: --environment must be one of sandbox, production, got "staging""#),
            (["apps", "show", "scores"], 2,
             #"scorecast apps show: the bundle id "scores" needs at least two dot-separated parts, like com.example.scores"#),
            (["apps", "update", "com.example.x", "--budget", "lots"], 2,
             #"scorecast apps update: --budget must be a whole number from 0 to 10000, got "lots""#),
            (["apps", "update", "com.example.x", "--frequent-updates", "--no-frequent-updates"], 2,
             "scorecast apps update: --frequent-updates and --no-frequent-updates contradict each other"),
            (["apps", "resume", "scores"], 2,
             #"scorecast apps resume: the bundle id "scores" needs at least two dot-separated parts, like com.example.scores"#),
            (["apps", "client-key", "com.example.scores"], 2, "scorecast apps client-key: missing --name NAME (or --list)"),
            (["games", "add", "--id", "g1", "--league", "L", "--home", "H", "--away", "A", "--starts-at", "yesterday"], 2,
             #"scorecast games add: --starts-at must be an RFC 3339 time such as 2025-11-29T20:00:00Z, got "yesterday""#),
            (["games", "add", "--id", "g1", "--league", "L", "--home", "H", "--away", "A", "--starts-at", "2025-11-29T20:00:00Z",
              "--home-colours", "red"], 2,
             #"scorecast games add: --home-colours must be one or two hex colours, PRIMARY[,SECONDARY] (#C8102E,#FFFFFF), got "red""#),
            (["games", "list", "--status", "nowhere"], 2,
             #"scorecast games list: --status must be one of scheduled, live, suspended, final, got "nowhere""#),
            (["games", "show", "a b"], 2,
             #"scorecast games show: the game id must be 1–128 letters, digits, '.', '_', ':' or '-', got "a b""#),
            (["games", "start-activities"], 2, "scorecast games start-activities: give exactly one game id"),
            (["games", "light-channel", "g1", "--app", "scores"], 2,
             #"scorecast games light-channel: --app "scores" needs at least two dot-separated parts, like com.example.scores"#),
            (["channels", "create", "--game", "g1", "--app", "scores"], 2,
             #"scorecast channels create: --app "scores" needs at least two dot-separated parts, like com.example.scores"#),
            (["channels", "create", "--game", "g1", "--app", "com.example.x", "--policy", "forever"], 2,
             #"scorecast channels create: --policy must be one of no-store, most-recent, got "forever""#),
            (["channels", "ensure", "--game", "a b"], 2,
             #"scorecast channels ensure: --game must be 1–128 letters, digits, '.', '_', ':' or '-', got "a b""#),
            (["channels", "list", "--app", "scores"], 2,
             #"scorecast channels list: --app "scores" needs at least two dot-separated parts, like com.example.scores"#),
            (["channels", "list", "--status", "lost"], 2,
             #"scorecast channels list: --status must be one of active, retiring, deleted, gone, got "lost""#),
            (["channels", "reconcile", "--app", "scores"], 2,
             #"scorecast channels reconcile: --app "scores" needs at least two dot-separated parts, like com.example.scores"#),
            (["stats", "--window", "15x"], 2,
             #"scorecast stats: --window: window "15x" is not a duration: use a whole number followed by m, h or d (for example 15m, 1h, 24h), at most 7d"#),
            (["config", "extra"], 2, "scorecast config: unexpected argument 'extra': this command takes options only (see --help)"),
            (["strings", "extra"], 2, "scorecast strings: unexpected argument 'extra': this command takes options only (see --help)"),
        ]) { arguments in try await ScorecastProcess.run(arguments, environment: environment) }
    }

    @Test func helpPrintsTheCommandsUsageAndExitsZero() async throws {
        let environment = try Self.unreachableDatabase()
        let help = try await ScorecastProcess.run(["games", "add", "--help"], environment: environment)
        #expect(help.code == 0)
        #expect(help.stderr.isEmpty)
        #expect(help.stdout.hasPrefix("usage: scorecast games add [options]\n\nAdd a game"), "\(help.stdout)")
        #expect(help.stdout.contains("  --starts-at TIME "))
        let group = try await ScorecastProcess.run(["channels"], environment: environment)
        #expect(group.code == 2, "a noun alone is not a command")
        #expect(group.stdout.hasPrefix("usage: scorecast channels <verb> [options]\n"))
    }

    @Test func whatIsNotThereIsNamedWithExitThree() async throws {
        try await RegistryE2E.with { fixture in
            try await Self.expect([
                (["keys", "revoke", "nobody"], 3, "scorecast keys revoke: no API key named nobody"),
                (["apps", "show", "com.example.none"], 3, "scorecast apps show: no app com.example.none (see `scorecast apps list`)"),
                (["games", "show", "nope"], 3, "scorecast games show: no game nope (see `scorecast games list`)"),
                (["channels", "ensure", "--game", "nope"], 3, "scorecast channels ensure: no game nope (add it with `scorecast games add`)"),
                (["channels", "list", "--app", "com.example.none"], 3, "scorecast channels list: no app com.example.none (see `scorecast apps list`)"),
                (["apps", "client-key", "com.example.none", "--name", "ios"], 3,
                 "scorecast apps client-key: no app com.example.none: add it first with `scorecast apps add`"),
            ]) { arguments in try await fixture.run(arguments) }
        }
    }
}
