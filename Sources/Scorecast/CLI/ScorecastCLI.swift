import Foundation

/// The `scorecast` command line: finds the command named by the leading words, parses its
/// options, runs it, and maps what it throws to an exit code.
public enum ScorecastCLI {
    /// Every command, in help order.
    static let commands: [CommandDefinition] = DemoCommand.all + ServeCommand.all + MigrateCommand.all
        + KeysCommands.all + EventsCommands.all
        + AppsCommands.all + GamesCommands.all + ChannelsCommands.all + StatsCommands.all
        + SimulatorCommands.all + ConfigCommand.all + StringsCommand.all

    /// Runs `arguments` (without the program name) and returns the exit code.
    public static func run(_ arguments: [String], context: CommandContext) async -> Int32 {
        let terminal = context.terminal
        let wantsHelp = arguments.contains("--help") || arguments.contains("-h")
        let words = arguments.prefix { !$0.hasPrefix("-") }

        guard let command = commands
            .filter({ words.starts(with: $0.words) })
            .max(by: { $0.words.count < $1.words.count })
        else {
            if words.isEmpty {
                terminal.print(overview())
                return wantsHelp || arguments.isEmpty ? ExitCode.success.rawValue : ExitCode.usage.rawValue
            }
            let group = commands.filter { $0.words.first == words.first }
            if !group.isEmpty && words.count == 1 {
                terminal.print(groupHelp(words[words.startIndex], group))
                return wantsHelp ? ExitCode.success.rawValue : ExitCode.usage.rawValue
            }
            terminal.error("scorecast: unknown command '\(words.joined(separator: " "))' (see scorecast --help)")
            return ExitCode.usage.rawValue
        }
        if wantsHelp {
            terminal.line(command.help)
            return ExitCode.success.rawValue
        }
        do {
            let rest = Array(arguments.dropFirst(command.words.count))
            let parsed = try ParsedArguments(command.rawArguments ? ["--"] + rest : rest, options: command.options)
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

    static func overview() -> String {
        var table = TextTable(["command", "what it does"])
        for command in commands { table.add([command.words.joined(separator: " "), command.summary]) }
        return """
            scorecast: Live Activity score updates through APNs broadcast channels.

            usage: scorecast <command> [options]    (scorecast <command> --help for more)

            \(table.render())
            Configuration comes from SCORECAST_* environment variables: see `scorecast config`.
            \(ExitCode.legend)

            """
    }

    static func groupHelp(_ noun: String, _ group: [CommandDefinition]) -> String {
        var table = TextTable(["command", "what it does"])
        for command in group { table.add([command.words.joined(separator: " "), command.summary]) }
        return "usage: scorecast \(noun) <verb> [options]\n\n" + table.render()
    }
}
