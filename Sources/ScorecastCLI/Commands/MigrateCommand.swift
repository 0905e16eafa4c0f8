import Foundation
import Migrations

/// `scorecast migrate [--status]`.
enum MigrateCommand {
    static let all: [CommandDefinition] = [
        CommandDefinition(
            ["migrate"], summary: "Apply pending schema migrations (or list them with --status)",
            options: [.flag("status", "list applied and pending migrations, change nothing"), .flag("json", "print as JSON")],
            details: """
                Applies the numbered SQL migrations built into the binary (or the .sql files of
                SCORECAST_SCHEMA_DIR) in order, each in its own transaction,
                under an advisory lock (two migrators at once are safe). A file changed after it
                was applied is refused. Without SCORECAST_DATABASE_URL the embedded cluster is used.
                """
        ) { arguments, context in
            let configuration = try context.configuration()
            let logger = context.logger("migrate", configuration)
            let files = try SchemaFolder.migrations(environment: context.environment)
            let migrator = Migrator(files: files, logger: logger)
            try await context.withDatabase(configuration, logger: logger) { database in
                if arguments.flag("status") {
                    let plan = try await migrator.plan(database.sessionPool)
                    if arguments.flag("json") {
                        try context.terminal.json(["applied": plan.applied.map(\.name), "pending": plan.pending.map(\.name)])
                    } else {
                        var table = TextTable(["migration", "state"])
                        for file in plan.applied { table.add([file.name, "applied"]) }
                        for file in plan.pending { table.add([file.name, "pending"]) }
                        context.terminal.print(table.render())
                    }
                } else {
                    let applied = try await migrator.migrate(database.sessionPool)
                    context.terminal.line(applied.isEmpty ? "schema is up to date" : "applied: \(applied.joined(separator: ", "))")
                }
            }
        }
    ]
}
