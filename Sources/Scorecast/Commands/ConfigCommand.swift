/// `scorecast config`: the documented settings, and whether the current environment is valid.
enum ConfigCommand {
    static let all: [CommandDefinition] = [
        CommandDefinition(
            ["config"], summary: "List every SCORECAST_* setting with its default, and check the environment",
            options: [.flag("json", "print as JSON")]
        ) { arguments, context in
            if arguments.flag("json") {
                struct Row: Encodable { let name, defaultValue, help: String; let set: Bool }
                try context.terminal.json(Configuration.settings.map {
                    Row(name: $0.name, defaultValue: $0.defaultValue, help: $0.help, set: context.environment[$0.name] != nil)
                })
            } else {
                var table = TextTable(["variable", "default", "meaning"])
                for setting in Configuration.settings {
                    table.add([setting.name + (context.environment[setting.name] != nil ? " *" : ""), setting.defaultValue, setting.help])
                }
                context.terminal.print(table.render())
                context.terminal.line("(* set in this environment)")
            }
            _ = try context.configuration()
        }
    ]
}
