import ServiceBase
/// `scorecast config`: every setting with the value in effect and where it came from, and
/// whether the environment is valid.
enum ConfigCommand {
    static let all: [CommandDefinition] = [
        CommandDefinition(
            ["config"], summary: "List every SCORECAST_* setting with the value in effect, and check the environment",
            options: [
                .flag("json", "print as JSON"),
                .flag("markdown", "print the settings table of docs/operations.md (defaults and meanings)"),
            ]
        ) { arguments, context in
            if arguments.flag("markdown") {
                context.terminal.line(Setting.markdownTable)
                return
            }
            let effective = Setting.effective(in: context.environment)
            if arguments.flag("json") {
                struct Row: Encodable { let name, value, source, defaultValue, help: String }
                try context.terminal.json(effective.map {
                    Row(name: $0.setting.name, value: $0.value, source: $0.source.rawValue,
                        defaultValue: $0.setting.defaultText, help: $0.setting.help)
                })
            } else {
                var table = TextTable(["variable", "value", "from", "meaning"])
                for row in effective {
                    table.add([row.setting.name, row.value, row.source.rawValue, row.setting.help])
                }
                context.terminal.print(table.render())
            }
            // Exits non-zero, naming every bad variable, when the environment is not valid.
            _ = try context.configuration()
        }
    ]
}
