import Arguments
import Foundation
import Migrations
import Server

/// The `scorecast` command line: finds the command named by the leading words, parses its
/// options, runs it, and maps what it throws to an exit code.
package enum CLI {
    /// Every command, in help order.
    static let commands: [CommandDefinition] = DemoCommand.all + ServeCommand.all + MigrateCommand.all
        + KeysCommands.all + EventsCommands.all
        + AppsCommands.all + GamesCommands.all + ChannelsCommands.all + StatsCommands.all
        + SimulatorCommands.all + ConfigCommand.all + StringsCommand.all + DeviceCommands.all

    /// `scorecast --version`: the release and the newest migration built in.
    static var version: String {
        let schema = (try? SchemaFolder.embedded())?.last.map { String($0.name.prefix(4)) } ?? "none"
        return "scorecast \(release) (schema \(schema))"
    }

    /// The release number.
    static let release = "0.9.0"

    /// Runs `arguments` (without the program name) and returns the exit code.
    package static func run(_ arguments: [String], context: CommandContext) async -> Int32 {
        let terminal = context.terminal
        let global: GlobalOptions
        do {
            global = try GlobalOptions(arguments, environment: context.environment)
        } catch {
            terminal.error("scorecast: \(ErrorMapping.commandError(for: error).message) (see scorecast --help)")
            return ExitCode.usage.rawValue
        }
        return await run(command: global.arguments, context: CommandContext(environment: global.environment, terminal: terminal))
    }

    /// Runs the command words and options of `arguments`, global options already applied.
    static func run(command arguments: [String], context: CommandContext) async -> Int32 {
        let terminal = context.terminal
        if arguments == ["--version"] || arguments == ["version"] {
            terminal.line(version)
            return ExitCode.success.rawValue
        }
        if arguments.first == "help" { return help(Array(arguments.dropFirst()), terminal: terminal) }
        let wantsHelp = arguments.contains("--help") || arguments.contains("-h")
        let words = arguments.prefix { !$0.hasPrefix("-") }

        guard let command = command(named: Array(words)) else {
            if words.isEmpty {
                terminal.print(overview())
                return wantsHelp || arguments.isEmpty ? ExitCode.success.rawValue : ExitCode.usage.rawValue
            }
            let group = commands.filter { $0.words.first == words.first }
            if !group.isEmpty && words.count == 1 {
                terminal.print(groupHelp(words[words.startIndex], group))
                return wantsHelp ? ExitCode.success.rawValue : ExitCode.usage.rawValue
            }
            terminal.error("scorecast: unknown command '\(words.joined(separator: " "))'\(suggestion(for: Array(words))) (see scorecast --help)")
            return ExitCode.usage.rawValue
        }
        if wantsHelp {
            terminal.line(command.help)
            return ExitCode.success.rawValue
        }
        for warning in UnknownVariables.warnings(context.environment) { terminal.error(warning) }
        do {
            let parsed = try command.parse(Array(arguments.dropFirst(command.words.count)))
            try await command.run(parsed, context)
            return ExitCode.success.rawValue
        } catch let error as CommandError {
            terminal.error("scorecast \(command.words.joined(separator: " ")): \(error.message)")
            return error.exitCode.rawValue
        } catch {
            let mapped = ErrorMapping.commandError(for: error)
            terminal.error("scorecast \(command.words.joined(separator: " ")): \(mapped.message)")
            return mapped.exitCode.rawValue
        }
    }

    /// The command whose words `words` start with (the longest such), if any.
    static func command(named words: [String]) -> CommandDefinition? {
        commands.filter { words.starts(with: $0.words) }.max { $0.words.count < $1.words.count }
    }

    /// What `run` would parse `arguments` into, without running anything: the command and its
    /// arguments, or the usage error `run` would print (documented commands are checked with it).
    package static func parse(_ arguments: [String]) throws -> ParsedArguments {
        let words = Array(arguments.prefix { !$0.hasPrefix("-") })
        guard let command = command(named: words) else {
            throw CommandError.usage("unknown command '\(words.joined(separator: " "))'\(suggestion(for: words))")
        }
        return try command.parse(Array(arguments.dropFirst(command.words.count)))
    }

    /// `scorecast help [noun [verb]]`: the overview, a noun's verbs, or a command's help.
    static func help(_ words: [String], terminal: Terminal) -> Int32 {
        if words.isEmpty {
            terminal.print(overview())
            return ExitCode.success.rawValue
        }
        if let command = commands.first(where: { $0.words == words }) {
            terminal.line(command.help)
            return ExitCode.success.rawValue
        }
        let group = commands.filter { $0.words.first == words.first }
        if words.count == 1 && !group.isEmpty {
            terminal.print(groupHelp(words[0], group))
            return ExitCode.success.rawValue
        }
        terminal.error("scorecast help: no command '\(words.joined(separator: " "))'\(suggestion(for: words)) (see scorecast --help)")
        return ExitCode.usage.rawValue
    }

    /// " (did you mean 'channels create'?)" for mistyped command words, or nothing.
    static func suggestion(for words: [String]) -> String {
        guard let first = words.first else { return "" }
        let nouns = Array(Set(commands.map { $0.words[0] })).sorted()
        let noun = nouns.contains(first) ? first : Suggestion.closest(to: first, among: nouns)
        guard let noun else { return "" }
        let group = commands.filter { $0.words[0] == noun }
        guard words.count > 1, group.contains(where: { $0.words.count > 1 }) else {
            return noun == first ? "" : " (did you mean '\(noun)'?)"
        }
        let verbs = group.compactMap { $0.words.count > 1 ? $0.words[1] : nil }
        guard let verb = verbs.contains(words[1]) ? words[1] : Suggestion.closest(to: words[1], among: verbs) else {
            return " (\(noun) takes: \(verbs.joined(separator: ", ")))"
        }
        return " (did you mean '\(noun) \(verb)'?)"
    }

    static func overview() -> String {
        var table = TextTable(["command", "what it does"])
        for command in commands { table.add([command.words.joined(separator: " "), command.summary]) }
        return """
            scorecast: Live Activity score updates through APNs broadcast channels.

            usage: scorecast [--env-file PATH] <command> [options]    (scorecast help <command>, or <command> --help, for more)

            \(table.render())
            Configuration comes from SCORECAST_* environment variables: see `scorecast config`.
            --env-file PATH adds those of a file read as systemd's EnvironmentFile= reads it
            (e.g. /etc/scorecast/scorecast.env); they win over the inherited environment.
            \(ExitCode.legend)

            """
    }

    static func groupHelp(_ noun: String, _ group: [CommandDefinition]) -> String {
        var table = TextTable(["command", "what it does"])
        for command in group { table.add([command.words.joined(separator: " "), command.summary]) }
        return "usage: scorecast \(noun) <verb> [options]\n\n" + table.render()
    }
}
