import Arguments
import Testing
@testable import ScorecastCLI

/// Every command's command line, parsed without running anything (`CLI.parse`, what `run`
/// does before a command starts): good lines give the values the command reads; a missing,
/// unknown or valueless option, or a stray word, is a usage error (exit 2) whose message names
/// what is wrong.
@Suite struct CommandLineTests {
    /// The usage error `scorecast arguments…` stops at, or `nil` when the line parses.
    static func usageError(_ arguments: [String]) -> CommandError? {
        do {
            _ = try CLI.parse(arguments)
            return nil
        } catch {
            return ErrorMapping.commandError(for: error)
        }
    }

    /// A good line per command, and what the command reads from it: option → value (`""` for a
    /// flag), and the positionals.
    static let goodLines: [(arguments: [String], values: [String: String], positionals: [String])] = [
        (["demo", "--speed", "120"], ["speed": "120"], []),
        (["serve", "--roles", "api,worker", "--ops-port", "9091"], ["roles": "api,worker", "ops-port": "9091"], []),
        (["migrate", "--status", "--json"], ["status": "", "json": ""], []),
        (["keys", "create", "--name", "opta", "--hmac", "--json"], ["name": "opta", "hmac": "", "json": ""], []),
        (["keys", "list", "--json"], ["json": ""], []),
        (["keys", "revoke", "opta"], [:], ["opta"]),
        (["events", "send", "--json", #"{"id": "e1"}"#, "--url", "http://127.0.0.1:8080", "--key", "k", "--signing-secret", "s", "--raw"],
         ["json": #"{"id": "e1"}"#, "url": "http://127.0.0.1:8080", "key": "k", "signing-secret": "s", "raw": ""], []),
        (["events", "send", "--file=-"], ["file": "-"], []),
        (["apps", "add", "--bundle-id", "com.example.scores", "--environment", "sandbox", "--team-id", "ABCDE12345",
          "--key-id", "KEY1234567", "--key-file", "/etc/scorecast/key.p8", "--frequent-updates", "--budget", "40",
          "--date-encoding", "unix-seconds", "--dismissal-delay", "600", "--alert-style", "plain", "--storage-policy", "most-recent",
          "--no-auto-channels", "--json"],
         ["bundle-id": "com.example.scores", "environment": "sandbox", "team-id": "ABCDE12345", "key-id": "KEY1234567",
          "key-file": "/etc/scorecast/key.p8", "frequent-updates": "", "budget": "40", "date-encoding": "unix-seconds",
          "dismissal-delay": "600", "alert-style": "plain", "storage-policy": "most-recent", "no-auto-channels": "", "json": ""], []),
        (["apps", "add", "--bundle-id=com.example.scores", "--environment=production", "--generate-key"],
         ["bundle-id": "com.example.scores", "environment": "production", "generate-key": ""], []),
        (["apps", "list", "--json"], ["json": ""], []),
        (["apps", "show", "com.example.scores", "--environment", "sandbox"], ["environment": "sandbox"], ["com.example.scores"]),
        (["apps", "update", "com.example.scores", "--key-id", "KEY7654321", "--no-frequent-updates", "--auto-channels"],
         ["key-id": "KEY7654321", "no-frequent-updates": "", "auto-channels": ""], ["com.example.scores"]),
        (["apps", "resume", "com.example.scores", "--no-check"], ["no-check": ""], ["com.example.scores"]),
        (["games", "add", "--id", "ars-che", "--league", "Premier League", "--home", "Arsenal", "--away", "Chelsea",
          "--starts-at", "2025-11-29T20:00:00Z", "--home-code", "ARS", "--away-colours", "034694,FFFFFF"],
         ["id": "ars-che", "league": "Premier League", "home": "Arsenal", "away": "Chelsea", "starts-at": "2025-11-29T20:00:00Z",
          "home-code": "ARS", "away-colours": "034694,FFFFFF"], []),
        (["games", "list", "--status", "live"], ["status": "live"], []),
        (["games", "show", "ars-che", "--json"], ["json": ""], ["ars-che"]),
        (["channels", "create", "--game", "ars-che", "--app", "com.example.scores", "--policy", "no-store", "--another"],
         ["game": "ars-che", "app": "com.example.scores", "policy": "no-store", "another": ""], []),
        (["channels", "ensure", "--game", "ars-che"], ["game": "ars-che"], []),
        (["channels", "list", "--game", "ars-che", "--status", "active"], ["game": "ars-che", "status": "active"], []),
        (["channels", "show", "42"], [:], ["42"]),
        (["channels", "delete", "42", "--json"], ["json": ""], ["42"]),
        (["channels", "reconcile", "--app", "com.example.scores", "--fix"], ["app": "com.example.scores", "fix": ""], []),
        (["stats", "--window", "1h", "--json"], ["window": "1h", "json": ""], []),
        (["apns-sim", "--port", "8443"], [:], ["--port", "8443"]),
        (["config", "--markdown"], ["markdown": ""], []),
        (["strings"], [:], []),
        (["apps", "client-key", "com.example.scores", "--name", "ios-2026", "--revoke"], ["name": "ios-2026", "revoke": ""], ["com.example.scores"]),
        (["games", "start-activities", "ars-che", "--json"], ["json": ""], ["ars-che"]),
        (["games", "light-channel", "ars-che", "--app", "com.example.scores"], ["app": "com.example.scores"], ["ars-che"]),
    ]

    @Test func everyCommandHasAGoodLine() {
        let covered = Set(Self.goodLines.compactMap { CLI.command(named: Array($0.arguments.prefix { !$0.hasPrefix("-") }))?.words })
        let missing = CLI.commands.map(\.words).filter { !covered.contains($0) }
        #expect(missing.isEmpty, "commands without a good line here: \(missing.map { $0.joined(separator: " ") })")
    }

    @Test func goodLinesGiveTheValuesTheCommandReads() throws {
        for line in Self.goodLines {
            let command = try #require(CLI.command(named: Array(line.arguments.prefix { !$0.hasPrefix("-") })))
            let parsed = try CLI.parse(line.arguments)
            let label = line.arguments.joined(separator: " ")
            #expect(parsed.positionals == line.positionals, "\(label)")
            for option in command.options {
                let expected = line.values[option.name]
                if option.value == nil {
                    #expect(parsed.flag(option.name) == (expected != nil), "\(label): --\(option.name)")
                } else {
                    #expect(parsed.value(option.name) == expected, "\(label): --\(option.name)")
                }
            }
            #expect(Set(line.values.keys).isSubset(of: Set(command.options.map(\.name))), "\(label) names an option the command lacks")
        }
    }

    /// The good line of `command`, the words included.
    static func goodLine(_ command: CommandDefinition) throws -> [String] {
        try #require(goodLines.first { CLI.command(named: Array($0.arguments.prefix { !$0.hasPrefix("-") }))?.words == command.words }).arguments
    }

    /// Commands that read their options through the one parser (not `apns-sim`, which parses its own).
    static var parsedCommands: [CommandDefinition] { CLI.commands.filter { !$0.rawArguments } }

    @Test func aMissingRequiredOptionIsNamedWithItsPlaceholder() throws {
        for command in Self.parsedCommands {
            let line = try Self.goodLine(command)
            for option in command.options where option.required {
                var without = line
                let at = try #require(without.firstIndex { $0 == "--\(option.name)" || $0.hasPrefix("--\(option.name)=") })
                without.removeSubrange(at...(without[at].contains("=") ? at : at + 1))
                let error = try #require(Self.usageError(without), "\(without)")
                #expect(error.exitCode == .usage)
                #expect(error.message == "missing --\(option.name) \(option.value ?? "")", "\(without)")
            }
        }
    }

    @Test func anUnknownOptionIsNamed() throws {
        for command in Self.parsedCommands {
            let error = try #require(Self.usageError(try Self.goodLine(command) + ["--qqqq"]))
            #expect(error.exitCode == .usage)
            #expect(error.message == "unknown option --qqqq", "\(command.words)")
        }
        // A near miss names the option meant.
        #expect(Self.usageError(["games", "list", "--stauts", "live"])?.message == "unknown option --stauts (did you mean '--status'?)")
    }

    @Test func anOptionWithoutItsValueOrAFlagWithOneIsNamed() throws {
        for command in Self.parsedCommands {
            let line = try Self.goodLine(command)
            for option in command.options {
                if let placeholder = option.value {
                    let error = try #require(Self.usageError(line + ["--\(option.name)"]), "\(command.words) --\(option.name)")
                    #expect(error.exitCode == .usage)
                    #expect(error.message == "--\(option.name) needs a value (\(placeholder))")
                } else {
                    let error = try #require(Self.usageError(line + ["--\(option.name)=yes"]), "\(command.words) --\(option.name)")
                    #expect(error.message == "--\(option.name) takes no value")
                }
            }
        }
    }

    @Test func aRepeatedOptionOrAStrayWordIsNamed() throws {
        #expect(Self.usageError(["games", "list", "--status", "live", "--status", "final"])?.message == "--status given more than once")
        #expect(Self.usageError(["stats", "today"])?.message == "unexpected argument 'today': this command takes options only (see --help)")
        #expect(Self.usageError(["channels", "show", "42", "43"])?.message == "unexpected argument '43' after the first 1 (see --help)")
        for command in Self.parsedCommands {
            let error = try #require(Self.usageError(try Self.goodLine(command) + ["stray"]), "\(command.words)")
            #expect(error.exitCode == .usage)
            #expect(error.message.hasPrefix("unexpected argument 'stray'"), "\(command.words): \(error.message)")
        }
    }

    @Test func anUnknownCommandIsNamedWithTheOneMeant() {
        #expect(Self.usageError(["chanels", "list"])?.message == "unknown command 'chanels list' (did you mean 'channels list'?)")
        #expect(Self.usageError(["games", "remove"])?.message == "unknown command 'games remove' (games takes: add, list, show, start-activities, light-channel)")
        #expect(Self.usageError(["frobnicate"])?.message == "unknown command 'frobnicate'")
        #expect(Self.usageError(["frobnicate"])?.exitCode == .usage)
    }

    @Test func everyCommandsHelpShowsItsUsageAndEveryOption() {
        for command in Self.parsedCommands {
            let lines = command.help.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            let usage = "usage: scorecast \(command.words.joined(separator: " "))" + (command.options.isEmpty ? "" : " [options]")
                + command.positionals.map { " \($0)" }.joined()
            #expect(lines.first == usage)
            #expect(lines.contains(command.summary))
            for option in command.options {
                let left = "  --\(option.name)" + (option.value.map { " \($0)" } ?? "")
                let help = lines.first { $0.hasPrefix(left + " ") }
                let notes = [option.required ? "required" : nil, option.repeatable ? "repeatable" : nil].compactMap { $0 }
                let expected = option.help + (notes.isEmpty ? "" : " (\(notes.joined(separator: ", ")))")
                #expect(help?.hasSuffix(expected) == true, "\(command.words): \(left)")
            }
            #expect(command.help.hasSuffix(ExitCode.legend))
        }
    }
}
